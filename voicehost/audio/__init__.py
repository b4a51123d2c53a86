"""Audio in and out as streams of chunks: the PCM they carry (pcm.py), WAV
files (wavfile.py) and sound devices (devices.py). A WAV file and a
microphone are two sources of the same thing; a speaker, an earpiece and a
recording file are sinks."""
from voicehost.audio.devices import (
    ChannelMicrophone,
    Device,
    MicrophoneSource,
    SpeakerSink,
    channel_report,
    find_device,
    list_devices,
)
from voicehost.audio.pcm import (
    CHUNK_SECONDS,
    RATE,
    AudioError,
    ChannelSource,
    Clip,
    Frame,
    NullSink,
    Sink,
    Source,
    split_channels,
    to_mono16,
)
from voicehost.audio.wavfile import RecordedChannels, WavFileChannels, WavFileSink, WavFileSource, read_wav

__all__ = ["CHUNK_SECONDS", "RATE", "AudioError", "ChannelMicrophone", "ChannelSource", "Clip", "Device", "Frame",
           "MicrophoneSource", "NullSink", "RecordedChannels", "Sink", "SpeakerSink", "Source", "WavFileChannels",
           "WavFileSink", "WavFileSource", "channel_report", "find_device", "list_devices", "read_wav",
           "split_channels", "to_mono16"]
