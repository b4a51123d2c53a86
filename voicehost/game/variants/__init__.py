"""Variants: what differs between games played on the one engine. The
interface is variants/base.py; this registry names the variant a ruleset plays."""
from __future__ import annotations

from collections.abc import Callable

from voicehost.game.variants.base import Variant
from voicehost.game.variants.city import CityVariant
from voicehost.game.variants.sports import SportsVariant
from voicehost.rules import GameKind, RuleOptions

VARIANTS: dict[GameKind, Callable[[], Variant]] = {
    GameKind.CITY: CityVariant,
    GameKind.SPORTS: SportsVariant,
}


def variant_for(rules: RuleOptions) -> Variant:
    """The variant a ruleset plays: the city game, or sports mafia."""
    return VARIANTS[rules.game]()


__all__ = ["VARIANTS", "Variant", "variant_for"]
