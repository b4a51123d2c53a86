"""The table's own certificate for the page on the LAN.

Made once with the `cryptography` package (an EC P-256 key, self-signed) and
kept beside the journal (mode 0600), so a game resumed after a crash serves the
same certificate and a phone that accepted it once is not asked again. No
authority signs it: a phone's browser warns the first time, and the host
compares the SHA-256 fingerprint the terminal printed with the browser's."""
from __future__ import annotations

import datetime
import ipaddress
import logging
import os
import ssl
import tempfile
from collections.abc import Iterable
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from voicehost.files import write_atomic

log = logging.getLogger(__name__)
DAYS = 825


def tls_file(journal: Path | None) -> Path | None:
    """Where a game's certificate and its key live: beside its journal and devices file."""
    return journal.with_name(journal.name + ".tls.pem") if journal is not None else None


def make_certificate(names: Iterable[str]) -> str:
    """A new key and a self-signed certificate for these addresses and names, as one PEM text."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "voicehost table"),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "voicehost")])
    alternatives: list[x509.GeneralName] = []
    for name in dict.fromkeys(n.strip("[]") for n in names if n):
        try:
            alternatives.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            alternatives.append(x509.DNSName(name))
    now = datetime.datetime.now(datetime.UTC)
    certificate = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
                   .public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(days=1))
                   .not_valid_after(now + datetime.timedelta(days=DAYS))
                   .add_extension(x509.SubjectAlternativeName(alternatives), critical=False)
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                   .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                   .sign(key, hashes.SHA256()))
    pem_key = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return pem_key.decode() + certificate.public_bytes(serialization.Encoding.PEM).decode()


def fingerprint(pem: str) -> str:
    """The certificate's SHA-256 fingerprint as browsers show it: 32 hex pairs."""
    certificate = x509.load_pem_x509_certificate(pem.encode())
    return ":".join(f"{b:02X}" for b in certificate.fingerprint(hashes.SHA256()))


def _usable(pem: str) -> bool:
    try:
        certificate = x509.load_pem_x509_certificate(pem.encode())
        serialization.load_pem_private_key(pem.encode(), None)
    except ValueError:
        return False
    return certificate.not_valid_after_utc > datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=1)


# TLS 1.2: forward-secret AEAD suites only (no CBC: its padding oracles, Lucky 13).
TLS12_CIPHERS = "ECDHE+AESGCM:ECDHE+CHACHA20"


def table_certificate(path: Path | None, names: Iterable[str]) -> tuple[ssl.SSLContext, str]:
    """The server's TLS context and fingerprint: the certificate kept at `path`, or a
    new one (kept there, 0600); in memory only when there is no journal."""
    pem = ""
    if path is not None and path.exists():
        try:
            pem = path.read_text("ascii")
        except (OSError, UnicodeDecodeError) as exc:
            log.warning("certificate %s unreadable (%s): a new one is made", path, exc)
        if pem and not _usable(pem):
            log.warning("certificate %s unusable or expiring: a new one is made", path)
            pem = ""
    if not pem:
        pem = make_certificate(names)
        if path is not None:
            try:
                write_atomic(path, pem)   # 0600 from its temp file on
            except OSError as exc:
                log.warning("cannot keep the certificate in %s (%s): a restart makes a new one", path, exc)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.set_ciphers(TLS12_CIPHERS)   # TLS 1.3's suites are all AEAD already
    with tempfile.TemporaryDirectory(prefix="voicehost-tls-") as folder:
        loaded = Path(folder) / "table.pem"
        loaded.write_text(pem, "ascii")
        os.chmod(loaded, 0o600)
        context.load_cert_chain(str(loaded))
    return context, fingerprint(pem)
