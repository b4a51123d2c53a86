"""A microphone per seat (SPEC §7.1): words count for the seat whose channel
heard them, bleed is dropped, out-of-turn speech is a foul suggestion and
nothing more; the journal keeps each word's seat and replays exactly."""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import day_table, run_async
from tests.signalparts import quiet, speech
from voicehost.game.events import OutOfTurn, parse_event
from voicehost.game.model import OutputKind
from voicehost.journal import replay_entries
from voicehost.live.seats import SeatVoices, level_db
from voicehost.phrases.words import Word

CHUNK = 1280   # 40 ms


def play(voices: SeatVoices, channels: dict[int, np.ndarray], speaker: int | None):
    """The channels through `voices`, chunk by chunk: the speaker's audio as kept, and the flags."""
    kept, flags = b"", []
    length = min(len(c) for c in channels.values()) * 2
    pcm = {seat: samples.tobytes() for seat, samples in channels.items()}
    for offset in range(0, length, CHUNK):
        audio, flagged = voices.chunk({s: p[offset:offset + CHUNK] for s, p in pcm.items()}, offset / 32000, speaker)
        kept += audio or b""
        flags += flagged
    return kept, flags


def test_the_speakers_voice_leaking_into_a_neighbour_is_bleed_not_the_neighbours_speech():
    voice = speech(3.0)
    voices = SeatVoices([3, 4], out_of_turn=0.7)
    kept, flags = play(voices, {3: voice, 4: (voice * 0.1).astype(np.int16) + quiet(3.0)}, speaker=3)
    assert flags == [] and voices.heard == {3}
    assert kept == voice.tobytes()[:len(kept)], "the speaker's own voice reaches the recognizer untouched"


def test_another_seat_talking_while_the_speaker_is_silent_is_flagged_once_and_never_reaches_the_recognizer():
    interjection = speech(2.0, start=3.7)
    speaker_channel = np.concatenate([quiet(0.5), (interjection * 0.1).astype(np.int16), quiet(0.5)])
    other = np.concatenate([quiet(0.5), interjection, quiet(0.5)])
    voices = SeatVoices([3, 5], out_of_turn=0.7)
    kept, flags = play(voices, {3: speaker_channel, 5: other}, speaker=3)
    (flag,) = flags
    assert flag.seat == 5 and flag.end - flag.start > 0.7 and 0.4 <= flag.start <= 1.2
    # the speaker's channel carried seat 5 at -20 dB: silenced where seat 5 spoke
    loud = [level_db(kept[i:i + 640]) for i in range(0, len(kept) - 639, 640)]
    assert max(loud) < -60


def test_a_short_interjection_is_no_out_of_turn_speech():
    voices = SeatVoices([3, 5], out_of_turn=0.7)
    _, flags = play(voices, {3: quiet(2.0), 5: np.concatenate([speech(0.4, start=3.72), quiet(1.6)])}, speaker=3)
    assert flags == [] and voices.heard == {5}


def test_out_of_turn_is_a_suggestion_to_the_host_and_changes_nothing(tmp_path):
    live = day_table(tmp_path / "j.jsonl")
    before = (live.game.where(), dict(live.game.fouls), list(live.game.today), live.game.next_deadline())
    outputs = live.apply(OutOfTurn(5, 31.0, 32.0))
    (output,) = outputs
    assert output.kind == OutputKind.SUGGEST and output.private and output.values == {"seat": 5, "suggest": "foul"}
    assert live.game.book.render(output) == "Игрок номер 5 говорит не в свою очередь"
    assert (live.game.where(), dict(live.game.fouls), list(live.game.today), live.game.next_deadline()) == before
    assert live.apply(OutOfTurn(1, 33.0, 34.0)) == [], "the speaker's own voice is no out-of-turn speech"
    live.close()
    game, _, entries = replay_entries(tmp_path / "j.jsonl")
    assert [e.event for e in entries if e.event["type"] == "out_of_turn"] == [
        {"type": "out_of_turn", "seat": 5, "start": 31.0, "end": 32.0},
        {"type": "out_of_turn", "seat": 1, "start": 33.0, "end": 34.0}]
    assert game.where() == "day 1, speech of seat 1"


def test_words_of_another_seats_channel_never_nominate_or_end_the_floor(tmp_path):
    live = day_table(tmp_path / "j.jsonl")
    live.hear([Word("выставляю", 31.0, 31.4, seat=5), Word("седьмого", 31.5, 32.0, seat=5),
               Word("спасибо", 32.2, 32.6, seat=5)])
    assert live.game.today == [] and live.game.where() == "day 1, speech of seat 1"
    live.hear([Word("выставляю", 33.0, 33.4, seat=1), Word("седьмого", 33.5, 34.0, seat=1)])
    assert live.game.today == [7]
    live.close()
    game, _, entries = replay_entries(tmp_path / "j.jsonl")
    assert game.today == [7]
    assert {e.event.get("seat") for e in entries if e.event["type"] == "word"} == {1, 5}


def test_a_heard_words_seat_is_read_from_a_journal_line():
    event = parse_event({"type": "word", "word": "три", "start": 1.0, "end": 1.5, "seat": 3})
    assert event.word.seat == 3
    with pytest.raises(Exception, match="seat must be a seat number"):
        parse_event({"type": "word", "word": "три", "start": 1.0, "end": 1.5, "seat": "3"})


def test_the_input_pipeline_tags_each_word_with_the_seat_whose_channel_heard_it(tmp_path):
    """Channels through hear_channels: the speaker's chunk is recognized, its
    words carry seat 1; seat 5's long interjection is one suggestion."""
    from voicehost.channels import Channel, Input
    from voicehost.live.pipeline import Timing, hear_channels

    live = day_table(tmp_path / "j.jsonl")
    heard_chunks = []

    class Recognizer:
        audio_time = 0.0

        def accept(self, chunk):
            heard_chunks.append(chunk)
            self.audio_time += len(chunk) / 32000
            return [Word("выставляю", 0.1, 0.4), Word("седьмого", 0.5, 0.9)] if len(heard_chunks) == 30 else []

        def finish(self):
            return []

    one, five = Channel(Input("", 2), 1), Channel(Input("", 6), 5)
    interjection = np.concatenate([quiet(1.5), speech(1.5, start=3.7)])
    frames = iter([{one: quiet(3.0).tobytes()[i:i + CHUNK], five: interjection.tobytes()[i:i + CHUNK]}
                   for i in range(0, 96000, CHUNK)])
    voices = SeatVoices([1, 5])
    outputs = []
    live.listeners.append(outputs.extend)
    run_async(hear_channels(live, frames, Recognizer(), voices, Timing(lambda: live.game.now)))
    assert live.game.today == [7]
    assert [(o.key, o.values["seat"]) for o in outputs if o.kind == OutputKind.SUGGEST] == [("out_of_turn", 5)]
    live.close()
    _, _, entries = replay_entries(tmp_path / "j.jsonl")
    assert [e.event.get("seat") for e in entries if e.event["type"] == "word"] == [1, 1]


def test_record_keeps_every_channel_and_the_file_plays_back_alike(tmp_path):
    """`--record` with a microphone per seat: every mapped channel in one WAV
    whose channel N is input N, read back by `--audio-file` as the same frames."""
    from voicehost.audio import RecordedChannels, WavFileChannels
    from voicehost.channels import Channel, ChannelMap, Input

    mapped = ChannelMap((Channel(Input("", 1), None), Channel(Input("", 2), 1), Channel(Input("", 4), 3)))
    frames = [{c: np.full(640, 100 * i + c.input.channel, np.int16).tobytes() for c in mapped.channels}
              for i in range(5)]

    class Source:
        closed = False

        def frames(self):
            return iter(frames)

        def close(self):
            self.closed = True

    source = Source()
    recorded = RecordedChannels(source, mapped, tmp_path / "t.channels.wav")
    assert list(recorded.frames()) == frames
    recorded.close()
    assert source.closed
    played = WavFileChannels(tmp_path / "t.channels.wav", mapped, chunk_seconds=0.04)
    assert list(played.frames()) == frames
    played.close()


def test_a_seats_words_are_journaled_as_short_runs_and_revisions_keep_their_seat(tmp_path):
    """Words of one seat's channel share one run line ({"ws": …, "seat": 1}),
    and an utterance's final result keeps the seat, so a replay is exact."""
    from voicehost.asr import Revision

    path = tmp_path / "j.jsonl"
    live = day_table(path)
    partial = (Word("выставляю", 31.0, 31.4, seat=1), Word("пятого", 31.5, 32.0, seat=1))
    live.hear(list(partial))
    live.hear([Revision(partial, (Word("выставляю", 31.0, 31.4, seat=1), Word("седьмого", 31.5, 32.1, seat=1)))])
    live.hear([Word("ну", 40.0, 40.2, seat=1), Word("вот", 40.3, 40.6, seat=1)])
    live.close()
    lines = path.read_text("utf-8")
    assert '"seat":1' in lines and '"ws":[' in lines
    game, _, entries = replay_entries(path)
    assert game.today == live.game.today == [7]
    def words(of):
        return [e.event for e in of if e.event["type"] == "word"]
    assert words(entries) == words(live.entries) and len(words(entries)) == 4
    assert {e.event.get("seat") for e in entries if e.event["type"] == "word"} == {1}


def test_the_host_hears_out_of_turn_speech_in_the_earpiece_in_typed_play_and_on_the_page(tmp_path):
    import asyncio
    import io

    from tests.fakes import FakeSpeaker
    from voicehost.live.terminal import Terminal
    from voicehost.web.hub import Hub

    speaker = FakeSpeaker()
    live = day_table(tmp_path / "j.jsonl", speaker)
    out = io.StringIO()
    Terminal(live, out)
    loop = asyncio.new_event_loop()
    page = Hub(live, loop)
    live.apply(OutOfTurn(5, 31.0, 32.0))
    live.sync()
    assert ("Игрок номер 5 говорит не в свою очередь", True) in speaker.lines, "in the earpiece, privately"
    assert "? Игрок номер 5 говорит не в свою очередь — фол?" in out.getvalue()
    assert page.suggestions[-1]["seat"] == 5 and page.suggestions[-1]["suggest"] == "foul"
    assert page.suggestions[-1]["word"] == "Игрок номер 5 говорит не в свою очередь"
    live.close()
    loop.close()


def test_the_board_marks_who_speaks_and_a_silent_channel_is_named_once(tmp_path):
    import io

    from voicehost.live.terminal import Terminal
    from voicehost.web.state import table_state
    from voicehost.web.texts import Texts

    live = day_table(tmp_path / "j.jsonl")
    out = io.StringIO()
    Terminal(live, out)
    voices = SeatVoices([1, 5, 6])
    _, flags = play(voices, {1: quiet(1.0), 5: np.concatenate([quiet(0.2), speech(0.8, start=3.72)]),
                             6: quiet(1.0)}, speaker=1)
    live.seats_heard(voices)
    seats = {s["seat"]: s for s in table_state(live, Texts())["seats"]}
    assert seats[5]["voice"] and not seats[6]["voice"] and seats[1]["speaking"] and not seats[1]["voice"]
    assert live.channels_notice is not None and "1, 6" in live.channels_notice
    assert out.getvalue().count("1, 6") == 1
    live.seats_heard(voices)
    assert out.getvalue().count("1, 6") == 1, "named once"
    live.close()


def test_the_host_channel_is_handed_on_never_a_players_words():
    from voicehost.channels import Channel, Input
    from voicehost.live.hearing import ChannelWords, Hearing

    hearing = Hearing(lambda text: True, lambda start, end: False)
    handed: list[ChannelWords] = []
    host = ChannelWords(Channel(Input("", 1), None), (Word("пауза", 1.0, 1.4),))
    assert hearing.channel(host) == (), "no host hand-off set: nobody hears the host's channel"
    hearing.host = handed.append
    assert hearing.channel(host) == () and handed == [host] and host.is_host and host.seat is None
    seat = ChannelWords(Channel(Input("", 2), 1), (Word("спасибо", 2.0, 2.4),))
    assert hearing.channel(seat) == seat.words and seat.seat == 1


def test_no_out_of_turn_speech_while_paused_or_for_a_seat_out_of_the_game(tmp_path):
    live = day_table(tmp_path / "j.jsonl")
    live.apply_json({"type": "pause"})
    assert live.apply(OutOfTurn(5, 31.0, 32.0)) == []
    live.apply_json({"type": "resume"})
    live.apply_json({"type": "disqualify", "seat": 5})
    assert live.apply(OutOfTurn(5, 40.0, 41.0)) == []
    assert [o.values["seat"] for o in live.apply(OutOfTurn(6, 42.0, 43.0))] == [6]
    live.close()
