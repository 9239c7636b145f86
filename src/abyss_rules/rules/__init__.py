"""The rules as pure functions over `State` (spec sections 1-7).

One module per part of the spec: `abyss_rules.rules.dealing` (1.4, 9.5, 9.6),
`abyss_rules.rules.opening` (2), `abyss_rules.rules.turn` (3),
`abyss_rules.rules.columns` (4), `abyss_rules.rules.draw_pile` (5),
`abyss_rules.rules.round_end` (6), `abyss_rules.rules.scoring` (6, 7),
`abyss_rules.rules.legal` (what may be played), `abyss_rules.rules.illegal` (why not),
`abyss_rules.rules.reachable` (which states play can reach, 3.11) and
`abyss_rules.rules.engine` (`apply`). The public entry points (`new_game`,
`legal_actions`, `apply`, `check`) are re-exported by `abyss_rules`; the other functions
here work on the engine's internal representation and are documented for readers of the
engine.
"""
