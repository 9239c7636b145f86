"""The rules as pure functions over :class:`~abyss_rules.State` (spec sections 1-7).

One module per part of the spec: :mod:`.dealing` (1.4, 9.5, 9.6),
:mod:`.opening` (2), :mod:`.turn` (3), :mod:`.columns` (4),
:mod:`.draw_pile` (5), :mod:`.round_end` (6), :mod:`.scoring` (6, 7),
:mod:`.legal` (what may be played), :mod:`.illegal` (why not) and
:mod:`.engine` (``apply``). The public entry points are re-exported by
:mod:`abyss_rules`.
"""
