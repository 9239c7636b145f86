"""The rules as pure functions over [`State`][abyss_rules.State] (spec sections 1-7).

One module per part of the spec: [`dealing`][abyss_rules.rules.dealing] (1.4, 9.5, 9.6),
[`opening`][abyss_rules.rules.opening] (2), [`turn`][abyss_rules.rules.turn] (3),
[`columns`][abyss_rules.rules.columns] (4), [`draw_pile`][abyss_rules.rules.draw_pile] (5),
[`round_end`][abyss_rules.rules.round_end] (6), [`scoring`][abyss_rules.rules.scoring] (6, 7),
[`legal`][abyss_rules.rules.legal] (what may be played), [`illegal`][abyss_rules.rules.illegal]
(why not), [`reachable`][abyss_rules.rules.reachable] (which states play can reach, 3.11) and
[`engine`][abyss_rules.rules.engine] (`apply`). The public entry points
([`new_game`][abyss_rules.new_game], [`legal_actions`][abyss_rules.legal_actions],
[`apply`][abyss_rules.apply], [`check`][abyss_rules.check]) are re-exported by `abyss_rules`;
the other functions here work on the engine's internal representation and are documented
for readers of the engine.
"""
