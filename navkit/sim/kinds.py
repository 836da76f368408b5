"""Character kinds and animation states, and their codes in the state arrays."""

from __future__ import annotations

import enum

__all__ = ["CharacterKind", "AnimationState"]


class CharacterKind(str, enum.Enum):
    """Who a character is. Players and bots cancel their destination after a
    persistent contact; NPCs keep it and retry later (docs/rules.md §9.4)."""

    PLAYER = "player"
    BOT = "bot"
    NPC = "npc"

    @property
    def code(self) -> int:
        """The uint8 code in the state arrays (0 player, 1 bot, 2 npc)."""
        return _KIND_CODES[self]

    @classmethod
    def from_code(cls, code: int) -> CharacterKind:
        return _KINDS[int(code)]


_KINDS = (CharacterKind.PLAYER, CharacterKind.BOT, CharacterKind.NPC)
_KIND_CODES = {k: i for i, k in enumerate(_KINDS)}


class AnimationState(enum.IntEnum):
    """The animation a character shows this tick (docs/rules.md §8.2 step 5)."""

    STAND = 0
    WALK = 1
