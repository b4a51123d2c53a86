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
    """Every phrasebook key the moderator can say: the registry (game/keys.py),
    which the stages' `say` takes as its only kind of key."""
    from voicehost.game.keys import Key

    return {key.value for key in Key}
