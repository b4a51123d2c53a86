"""What the scripted games and the source say the moderator announces: the
outputs of a script as the moderator emits them, and every key it can say."""
from __future__ import annotations

from pathlib import Path


def moderator_outputs(script: Path, args: list[str]) -> list:
    """The announcements as the moderator emits them, before the CLI sorts anything."""
    from voicehost.rules import rules_for
    from voicehost.simulate import load_script
    from voicehost.simulate import simulate as play

    name = args[args.index("--ruleset") + 1] if "--ruleset" in args else "4mafia"
    overrides = dict(a.split("=", 1) for a in args[args.index("--set") + 1:][:1]) if "--set" in args else {}
    lines, where = load_script(script)
    return [o for o in play(lines, rules_for(name, overrides or None), where).outputs if o.kind == "say"]


MODERATOR = Path(__file__).resolve().parent.parent / "voicehost" / "game" / "moderator.py"


def said_keys() -> set[str]:
    """Every phrasebook key the moderator can say: first arguments of say and
    no_vote in the game's modules (constants or either branch of a conditional),
    its key tables, and every variant's winners."""
    import ast

    from voicehost.game import narration
    from voicehost.game.city import CityVariant
    from voicehost.game.variants.sports import SportsVariant

    keys: set[str] = set(narration.FLOOR_INTRO.values()) | set(narration.REMOVAL_SAY.values())
    keys |= set(SportsVariant.win_say.values()) | set(CityVariant.win_say.values())

    def constants(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value
        elif isinstance(node, ast.IfExp):
            yield from constants(node.body)
            yield from constants(node.orelse)

    for module in sorted(MODERATOR.parent.rglob("*.py")):
        for node in ast.walk(ast.parse(module.read_text("utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) \
                    in ("say", "no_vote") and node.args:
                keys |= set(constants(node.args[-1] if len(node.args) > 1 else node.args[0]))
    return keys
