"""Which payout provider the portal uses, and when the local Tremendous stand-in runs: the rule, with no I/O.

PAYOUT_PROVIDER: 'auto' (default): Tremendous when TREMENDOUS_API_KEY is set; else, on a loopback BASE_URL,
Tremendous's local stand-in (portal/standins/tremendous, mounted at /local-payouts), so that `make run` on a
fresh clone pays a reward all the way; else the manual provider (staff mark rewards paid by hand).
'tremendous': Tremendous (the stand-in on a loopback BASE_URL without a key; anywhere else a key is
required: the portal refuses to start). 'manual': never a provider.

The stand-in follows the local sign-in stand-in's rule (portal/domain/local_oidc.py): only on a loopback
BASE_URL and never in place of a configured provider.
"""

from __future__ import annotations

from dataclasses import dataclass

from portal.domain.local_oidc import is_loopback

MODES = ("auto", "tremendous", "manual")
TREMENDOUS, MANUAL = "tremendous", "manual"
PREFIX = "/local-payouts"
API_PATH = f"{PREFIX}/api/v2"
HOSTS = {"sandbox": "https://testflight.tremendous.com/api/v2", "production": "https://api.tremendous.com/api/v2"}


class PayoutSettingRefused(ValueError):
    """PAYOUT_PROVIDER or TREMENDOUS_ENVIRONMENT names something that cannot run here."""


@dataclass(frozen=True)
class Choice:
    provider: str  # "tremendous" | "manual"
    standin: bool  # Tremendous is the local stand-in


def choose(mode: str, api_key: str, base_url: str) -> Choice:
    """The provider for PAYOUT_PROVIDER `mode`, a TREMENDOUS_API_KEY (or ''), and BASE_URL."""
    mode = (mode or "auto").strip().lower()
    if mode not in MODES:
        raise PayoutSettingRefused(f"PAYOUT_PROVIDER must be one of {', '.join(MODES)}, not {mode!r}.")
    if mode == MANUAL:
        return Choice(MANUAL, False)
    if api_key:
        return Choice(TREMENDOUS, False)
    if is_loopback(base_url):
        return Choice(TREMENDOUS, True)
    if mode == TREMENDOUS:
        raise PayoutSettingRefused(
            "PAYOUT_PROVIDER=tremendous needs TREMENDOUS_API_KEY: the local Tremendous stand-in only runs on a "
            f"loopback BASE_URL (localhost), not on {base_url}."
        )
    return Choice(MANUAL, False)


def host(environment: str, api_url: str) -> str:
    """Tremendous's API address: TREMENDOUS_API_URL when set, else the environment's."""
    if api_url:
        return api_url.rstrip("/")
    name = (environment or "sandbox").strip().lower()
    if name not in HOSTS:
        raise PayoutSettingRefused(f"TREMENDOUS_ENVIRONMENT must be sandbox or production, not {environment!r}.")
    return HOSTS[name]
