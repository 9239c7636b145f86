"""The handlers of `demo`, `replay`, `validate` and `schema`.

Each `_cmd_NAME(args, out)` runs one subcommand of `abyss_rules.cli.build_parser` and returns its
exit status; `play` and `simulate` have modules of their own.
"""

from __future__ import annotations

import argparse
import io
import json
import secrets
from typing import Any, TextIO

from ..actions import Draw
from ..codec import DecodeError, parse_json, state_from_dict, state_hash
from ..errors import AbyssError, Code
from ..pictures._pages import replay_html
from ..pictures._words import a_card
from ..protocol import Verdict, validate
from ..records import Record, ReplayError
from ..simulation import play_game
from ..state import Phase
from ._narration import Narrator, narrate, seat_label, variant_summary, winners_line
from ._options import (
    EXIT_BAD_INPUT,
    EXIT_NO,
    EXIT_OK,
    BadInput,
    UsageError,
    bot_names,
    read_input_text,
    variant_of,
    width_of,
    write_record,
)


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    v = variant_of(args)
    names = bot_names(args.bots, v)
    seed = args.seed if args.seed is not None else secrets.randbits(64)
    result = play_game(names, v, seed, keep_states=not args.quiet)
    if args.record is not None:
        write_record(args.record, result.to_record().with_names(names))
    if args.quiet:
        print(winners_line(result.final, result.bots), file=out)
        return EXIT_OK
    print("Abyss: a game between built-in bots; the lowest total wins", file=out)
    print("  " + "   ".join(seat_label(p, names) for p in range(len(names))), file=out)
    print(f"  variant: {variant_summary(v)}; seed: {seed}", file=out)
    again = ["python -m abyss_rules demo", "--seed", str(seed), "--variant", args.variant,
             *[f"--set {k}={json.dumps(val)}" for k, val in args.changes], "--bots", *names]
    print(f"  to watch this game again: {' '.join(again)}", file=out)
    print("  spaces are (row,col), counted from 0; ?? is a face-down card; a blank column was swallowed",
          file=out)
    width, wrap = width_of(args, out)
    narrate(result, out, width=width, wrap=wrap)
    return EXIT_OK


def cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    stdin: TextIO = args.stdin
    if args.step and args.file == "-":
        raise UsageError("--step reads Enter from standard input: give the record as a file")
    if args.step and args.html is not None:
        raise UsageError("--step and --html do not go together: the page steps through the game itself")
    text = read_input_text(args.file, stdin)
    try:
        record = Record.from_json(text, verify=False)
    except DecodeError as error:
        raise BadInput(f"{args.file} is not a record document: {error}", error) from None
    if record.is_redacted:
        raise ReplayError(Code.RECORD_REDACTED, "the record is redacted (it has no seed): its cards are "
                                                "unknown, so it cannot be replayed", "/seed")
    quiet = args.quiet or args.html is not None
    width, wrap = width_of(args, out)
    names = record.names
    narrator = Narrator(io.StringIO() if quiet else out, names, width=width, wrap=wrap)
    narrator.say(f"Replay of a record: {record.players} players, variant {variant_summary(record.variant)}, "
                 f"{len(record.actions)} actions")
    if names is not None:
        narrator.say("  " + "   ".join(seat_label(p, names) for p in range(record.players)))
    states = record.states()
    before = next(states)
    narrator.round_start(before)
    if before.phase is not Phase.OPENING:
        narrator.opening_done(before)
    for index, action in enumerate(record.actions):
        try:
            after = next(states)
        except ReplayError:  # replay_failed: an illegal action; tell a pending draw first
            if before.phase is Phase.DRAWN and before.drawn is not None:
                narrator.say(f"      (seat {before.turn} drew {a_card(before.drawn)})")
            raise
        narrator.action(before, action, after)
        before = after
        if args.step and not isinstance(action, Draw) and index + 1 < len(record.actions):
            out.write("  [Enter: next, q: stop] ")
            out.flush()
            answer = stdin.readline()
            if not answer or answer.strip().lower() in ("q", "quit"):
                narrator.say("Replay stopped.")
                return EXIT_OK
    final = before
    if record.final_hash is not None and state_hash(final) != record.final_hash:
        raise ReplayError(Code.REPLAY_MISMATCH, "the replayed final state does not have the recorded hash",
                          "/final_hash")
    if not final.is_over:
        narrator.say(f"The record ends here: round {final.round}, phase {final.phase.value}"
                     + (f", seat {final.turn} to play" if final.turn is not None else "") + ".")
    if args.html is not None:
        page = replay_html(record)
        try:
            with open(args.html, "w", encoding="utf-8") as f:
                f.write(page)
        except OSError as error:
            why = error.strerror or error
            raise BadInput(f"cannot write the replay page to {args.html}: {why}") from None
        print(f"Wrote the replay page {args.html} ({len(page.encode('utf-8')) // 1024 + 1} KB): open it in a "
              "browser and step with the buttons or the arrow keys.", file=out)
    summary = winners_line(final, names) if final.is_over else \
        f"Replayed {len(record.actions)} actions; the game is not over."
    if quiet:
        print(summary, file=out)
    print(f"Final state hash: {state_hash(final)}" + (" (matches the record)" if record.final_hash else ""),
          file=out)
    return EXIT_OK


def cmd_validate(args: argparse.Namespace, out: TextIO) -> int:
    stdin: TextIO = args.stdin
    if [args.state, args.action].count("-") > 1:
        raise UsageError("only one of STATE and ACTION can be read from standard input ('-')")
    if args.notation is not None and args.action is not None:
        raise UsageError("give the action as ACTION or as --notation, not both")
    if args.state is not None and args.action is None and args.notation is None:
        raise UsageError("give the action: ACTION (a file, or '-') or --notation TEXT")
    try:
        if args.state is None:
            if args.notation is not None:
                raise UsageError("--notation needs a STATE file")
            pair = _parse_pair(read_input_text("-", stdin))
            state_doc, action = pair["state"], pair["action"]
        else:
            state_doc = _parse_document(read_input_text(args.state, stdin), args.state)
            action = args.notation if args.notation is not None else read_input_text(args.action, stdin)
        if isinstance(state_doc, dict) and state_doc.get("format") == "record":
            state = _state_of_record(state_doc, args.at)
        else:
            if args.at is not None:
                raise UsageError("--at needs a record: a state document is one state already")
            try:
                state = state_from_dict(state_doc)
            except DecodeError as error:
                raise BadInput(f"the state is not a valid state document: {error}", error) from None
    except BadInput as bad:
        problem = bad.error or AbyssError(Code.UNREADABLE_INPUT, str(bad))
        print(Verdict.from_error(problem, None).to_json(), file=out)
        print(f"abyss-rules: error: {bad}", file=args.stderr)
        return EXIT_BAD_INPUT
    verdict = validate(state, action, seq=args.seq, player=args.player, require_seq=args.require_seq)
    print(verdict.to_json(), file=out)
    return EXIT_OK if verdict.legal else EXIT_NO


def _state_of_record(doc: dict[str, Any], at: int | None) -> Any:
    """The state of a game record after its first `at` actions (`None`: after all of them)."""
    try:
        record = Record.from_dict(doc)
        if at is not None and not 0 <= at <= len(record.actions):
            raise UsageError(f"--at must be from 0 to {len(record.actions)} (the record's actions), "
                              f"got {at}")
        for n, state in enumerate(record.states()):
            if n == at:
                return state
    except AbyssError as error:
        raise BadInput(f"the record cannot give a state: {error}", error) from None
    return state


def _parse_document(text: str, where: str) -> Any:
    """`text` parsed as strictly as every loader parses (`parse_json`: the size limit, no NaN
    or Infinity, no key twice, no nesting beyond `MAX_DEPTH`), else bad input naming `where`."""
    try:
        return parse_json(text)
    except DecodeError as error:
        raise BadInput(f"{where}: {error.message}", error) from None


def _parse_pair(text: str) -> dict[str, Any]:
    doc = _parse_document(text, "standard input")
    if not isinstance(doc, dict) or set(doc) != {"state", "action"}:
        error = DecodeError(Code.WRONG_FORMAT, 'standard input must be a JSON object {"state": <state '
                                               'document>, "action": <action document or notation>}')
        raise BadInput(error.message, error)
    return doc


def _schema_dir() -> Any:
    """Where the JSON Schemas are: packaged with the library, or in the source tree's spec/schemas."""
    from importlib import resources
    from pathlib import Path

    packaged = resources.files("abyss_rules") / "schemas"
    if packaged.is_dir():
        return packaged
    source = Path(__file__).resolve().parents[3] / "spec" / "schemas"  # src/abyss_rules/cli/ -> the root
    if source.is_dir():
        return source
    raise BadInput("the JSON Schemas are not installed with this copy of abyss-rules "
                    "(they are spec/schemas/ in the source repository)")


def _schemas() -> dict[str, Any]:
    folder = _schema_dir()
    out = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".schema.json"):
            out[entry.name.removesuffix(".schema.json")] = json.loads(entry.read_text(encoding="utf-8"))
    return out


def cmd_schema(args: argparse.Namespace, out: TextIO) -> int:
    schemas = _schemas()
    if args.list:
        for name in schemas:
            print(name, file=out)
        return EXIT_OK
    if args.name is None:
        json.dump(schemas, out, indent=2, ensure_ascii=False)
    elif args.name in schemas:
        json.dump(schemas[args.name], out, indent=2, ensure_ascii=False)
    else:
        raise UsageError(f"no schema {args.name!r}; the documents are: {', '.join(schemas)}")
    out.write("\n")
    return EXIT_OK
