"""Every setting of the portal, read once from the environment.

Each setting has a documented default (see README.md, "Settings") so that
`make run` works on a fresh machine with nothing configured.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from portal.domain import local_oidc, payout_choice, sms_choice

ROOT = Path(__file__).resolve().parent.parent


def _env(name: str, default: str = "") -> str:
    value = os.environ.get(name)
    return default if value is None or value.strip() == "" else value.strip()


def _env_int(name: str, default: int) -> int:
    raw = _env(name)
    try:
        return int(raw) if raw else default
    except ValueError as exc:  # a clear message instead of a traceback deep in startup
        raise SystemExit(f"Setting {name} must be a whole number, got {raw!r}") from exc


def _env_bool(name: str, default: bool) -> bool:
    raw = _env(name).lower()
    if not raw:
        return default
    return raw in {"1", "true", "yes", "on"}


def _env_list(name: str) -> list[str]:
    return [item.strip() for item in _env(name).split(",") if item.strip()]


def _env_origins(name: str) -> list[str]:
    """A comma-separated list of origins (scheme://host[:port]); '*' and paths are refused."""
    origins = []
    for item in _env_list(name):
        parts = urlsplit(item.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.path or parts.query or "*" in item:
            raise SystemExit(f"Setting {name} must list origins such as https://app.example.com, got {item!r}")
        origins.append(f"{parts.scheme}://{parts.netloc}".lower())
    return origins


def _secret_key() -> str:
    """SECRET_KEY, or a random key kept in a local file so restarts keep sessions."""
    explicit = _env("SECRET_KEY")
    if explicit:
        return explicit
    key_file = ROOT / ".secret_key"
    if key_file.exists():
        return key_file.read_text().strip()
    key = secrets.token_urlsafe(48)
    key_file.write_text(key)
    key_file.chmod(0o600)
    return key


def default_web_workers() -> int:
    """One backend worker per core (at most 8). Reflex's own default, 2 x cores + 1, was no faster on
    the 2-core machine and costs about 260 MB a worker (bench/README.md, `bench/scale_load.py`)."""
    return max(1, min(os.cpu_count() or 1, 8))


# A tab's state stays in its worker this long after an event (bench/README.md: 20 s covers a few
# answers at a person's pace; the lock's expiration, 60 s, must stay above it).
STATE_LEASE_SECONDS = 20
MAX_STATE_LEASE_SECONDS = 50


def state_lease_environment(seconds: int) -> dict[str, str]:
    """Reflex's variables for a state lease of `seconds` (its opportunistic lock; 0: off), as rxconfig.py
    applies them and bench/scale_load.py gives them to the portal and the blank app alike."""
    if not seconds:
        return {"REFLEX_OPLOCK_ENABLED": "false"}
    return {"REFLEX_OPLOCK_ENABLED": "true", "REFLEX_OPLOCK_HOLD_TIME": f"{seconds * 1000}ms"}


_LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


@dataclass(frozen=True)
class Settings:
    database_url: str = field(default_factory=lambda: _env("DATABASE_URL", f"sqlite:///{ROOT / 'portal.db'}"))
    redis_url: str = field(default_factory=lambda: _env("REDIS_URL"))
    # Granian backend workers when REDIS_URL is set (rxconfig.py passes it on as GRANIAN_WORKERS).
    web_workers: int = field(default_factory=lambda: _env_int("WEB_WORKERS", default_web_workers()))
    # With REDIS_URL: how long a worker keeps a tab's state and its Redis lock after an event, so the
    # tab's next events skip loading and writing it (rxconfig.py: Reflex's opportunistic lock); 0 turns
    # it off. Under the lock's expiration (60 s).
    state_lease_seconds: int = field(default_factory=lambda: _env_int("STATE_LEASE_SECONDS", STATE_LEASE_SECONDS))
    secret_key: str = field(default_factory=_secret_key)
    base_url: str = field(default_factory=lambda: _env("BASE_URL", "http://localhost:3000").rstrip("/"))
    port: int = field(default_factory=lambda: _env_int("PORT", 3000))
    # The address the server listens on (rxconfig.py: Reflex's backend_host). Empty: loopback only
    # (127.0.0.1) on a loopback BASE_URL, every interface (0.0.0.0) otherwise; see `listen_address`.
    listen_host: str = field(default_factory=lambda: _env("LISTEN_HOST"))
    # Cookies get the Secure flag when the portal is served over https.
    cookie_secure: bool = field(
        default_factory=lambda: _env_bool("COOKIE_SECURE", _env("BASE_URL").startswith("https://"))
    )
    session_idle_minutes: int = field(default_factory=lambda: _env_int("SESSION_IDLE_MINUTES", 60 * 24 * 7))
    session_absolute_days: int = field(default_factory=lambda: _env_int("SESSION_ABSOLUTE_DAYS", 30))
    help_center_url: str = field(default_factory=lambda: _env("HELP_CENTER_URL", "https://help.example.com"))
    customer_site_url: str = field(default_factory=lambda: _env("CUSTOMER_SITE_URL", "https://app.example.com"))
    brand_name: str = field(default_factory=lambda: _env("BRAND_NAME", "Participants Portal"))
    # Origins besides BASE_URL's own that may call the portal from a browser (CORS, the websocket).
    cors_extra_origins: list[str] = field(default_factory=lambda: _env_origins("CORS_EXTRA_ORIGINS"))
    # Addresses of reverse proxies whose X-Forwarded-For header is believed.
    trusted_proxies: list[str] = field(default_factory=lambda: _env_list("TRUSTED_PROXIES"))
    # Sign-in throttling: failures allowed per window, per account and per client address.
    login_max_failures_per_account: int = field(default_factory=lambda: _env_int("LOGIN_MAX_FAILURES_PER_ACCOUNT", 10))
    login_max_failures_per_ip: int = field(default_factory=lambda: _env_int("LOGIN_MAX_FAILURES_PER_IP", 30))
    login_window_seconds: int = field(default_factory=lambda: _env_int("LOGIN_WINDOW_SECONDS", 900))
    log_level: str = field(default_factory=lambda: _env("LOG_LEVEL", "INFO"))
    # Error reporting (portal/services/error_reporting.py): empty SENTRY_DSN leaves the Sentry SDK off.
    sentry_dsn: str = field(default_factory=lambda: _env("SENTRY_DSN"))
    # Empty: "development" on a loopback BASE_URL, else "production" (see sentry_environment_name).
    sentry_environment: str = field(default_factory=lambda: _env("SENTRY_ENVIRONMENT"))
    # Empty: the SDK's default (the checkout's git commit, else a CI commit variable, else none).
    sentry_release: str = field(default_factory=lambda: _env("SENTRY_RELEASE"))
    # E-mail delivery. No SMTP_HOST: messages stay in the outbox (python -m portal.cli outbox).
    smtp_host: str = field(default_factory=lambda: _env("SMTP_HOST"))
    smtp_port: int = field(default_factory=lambda: _env_int("SMTP_PORT", 587))
    smtp_username: str = field(default_factory=lambda: _env("SMTP_USERNAME"))
    smtp_password: str = field(default_factory=lambda: _env("SMTP_PASSWORD"))
    # starttls | tls | none
    smtp_security: str = field(default_factory=lambda: _env("SMTP_SECURITY", "starttls").lower())
    mail_from: str = field(default_factory=lambda: _env("MAIL_FROM", "Participants Portal <no-reply@example.com>"))
    mail_poll_seconds: float = field(default_factory=lambda: float(_env("MAIL_POLL_SECONDS", "5")))
    mail_max_attempts: int = field(default_factory=lambda: _env_int("MAIL_MAX_ATTEMPTS", 8))
    # Notifications (issue 38): the reminder of an open invite goes this many hours before it expires.
    # Problem reports (issue 38): e-mailed to this address, else to every super-admin and team owner.
    reports_email: str = field(default_factory=lambda: _env("REPORTS_EMAIL"))
    invite_reminder_hours: int = field(default_factory=lambda: max(1, _env_int("INVITE_REMINDER_HOURS", 4)))
    verification_link_hours: int = field(default_factory=lambda: _env_int("VERIFICATION_LINK_HOURS", 48))
    # E-mail limits (portal/domain/mail_limits.py): one message per cooldown per account and kind and
    # per address and kind; verification e-mails per address per hour. 0 turns a limit off.
    mail_cooldown_seconds: int = field(default_factory=lambda: _env_int("MAIL_COOLDOWN_SECONDS", 60))
    mail_max_per_address_per_hour: int = field(default_factory=lambda: _env_int("MAIL_MAX_PER_ADDRESS_PER_HOUR", 5))
    # Password reset: link lifetime (never more than 60 minutes) and request throttling.
    reset_link_minutes: int = field(default_factory=lambda: max(1, min(60, _env_int("RESET_LINK_MINUTES", 60))))
    reset_max_requests_per_account: int = field(default_factory=lambda: _env_int("RESET_MAX_REQUESTS_PER_ACCOUNT", 5))
    reset_max_requests_per_ip: int = field(default_factory=lambda: _env_int("RESET_MAX_REQUESTS_PER_IP", 20))
    reset_window_seconds: int = field(default_factory=lambda: _env_int("RESET_WINDOW_SECONDS", 3600))
    # Invisible captcha on sign-in and sign-up: none (default) | recaptcha | hcaptcha | turnstile.
    captcha_provider: str = field(default_factory=lambda: _env("CAPTCHA_PROVIDER", "none").lower())
    captcha_site_key: str = field(default_factory=lambda: _env("CAPTCHA_SITE_KEY"))
    captcha_secret: str = field(default_factory=lambda: _env("CAPTCHA_SECRET"))
    captcha_verify_url: str = field(default_factory=lambda: _env("CAPTCHA_VERIFY_URL"))
    captcha_script_url: str = field(default_factory=lambda: _env("CAPTCHA_SCRIPT_URL"))
    captcha_min_score: float = field(default_factory=lambda: float(_env("CAPTCHA_MIN_SCORE", "0.5")))
    # LinkedIn and Google sign-in (OpenID Connect). A provider with no client id is not configured: no button.
    linkedin_client_id: str = field(default_factory=lambda: _env("LINKEDIN_CLIENT_ID"))
    linkedin_client_secret: str = field(default_factory=lambda: _env("LINKEDIN_CLIENT_SECRET"))
    linkedin_metadata_url: str = field(
        default_factory=lambda: _env(
            "LINKEDIN_METADATA_URL", "https://www.linkedin.com/oauth/.well-known/openid-configuration"
        )
    )
    google_client_id: str = field(default_factory=lambda: _env("GOOGLE_CLIENT_ID"))
    google_client_secret: str = field(default_factory=lambda: _env("GOOGLE_CLIENT_SECRET"))
    google_metadata_url: str = field(
        default_factory=lambda: _env(
            "GOOGLE_METADATA_URL", "https://accounts.google.com/.well-known/openid-configuration"
        )
    )
    # The local sign-in stand-in (portal/domain/local_oidc.py): auto | on | off. When it runs, both
    # providers above point at it (see __post_init__) and `local_oidc_active` is True.
    local_oidc: str = field(default_factory=lambda: _env("LOCAL_OIDC", "auto"))
    local_oidc_active: bool = field(default=False, init=False)
    # Feature flags from GrowthBook when a client key is set (else the feature_flag table only).
    growthbook_client_key: str = field(default_factory=lambda: _env("GROWTHBOOK_CLIENT_KEY"))
    growthbook_api_host: str = field(default_factory=lambda: _env("GROWTHBOOK_API_HOST", "https://cdn.growthbook.io"))
    # The SDK connection's decryption key (base64 AES key) when it serves encrypted features.
    growthbook_decryption_key: str = field(default_factory=lambda: _env("GROWTHBOOK_DECRYPTION_KEY"))
    # Reviews nobody decided are approved automatically after this many days (issue 15).
    auto_approve_days: int = field(default_factory=lambda: _env_int("AUTO_APPROVE_DAYS", 14))
    # Review quality flags (issue 36) are computed for every test with new reviews this often, in every worker.
    # The yearly reporting threshold for payments to one participant (issue 37): staff see who approaches it.
    tax_threshold_cents: int = field(default_factory=lambda: _env_int("TAX_THRESHOLD_CENTS", 200_000))
    # Approved rewards are ordered from the payout provider this often, in every worker (issue 37).
    payout_every_seconds: int = field(default_factory=lambda: _env_int("PAYOUT_EVERY_SECONDS", 60))
    quality_flags_every_seconds: int = field(default_factory=lambda: _env_int("QUALITY_FLAGS_EVERY_SECONDS", 60))
    growthbook_cache_seconds: float = field(default_factory=lambda: float(_env("GROWTHBOOK_CACHE_SECONDS", "60")))
    growthbook_timeout_seconds: float = field(default_factory=lambda: float(_env("GROWTHBOOK_TIMEOUT_SECONDS", "3")))
    # Test images (issue 16): a local directory served at /media/..., or an S3-compatible store when
    # S3_BUCKET is set (S3_ENDPOINT_URL for a store other than AWS; S3_PUBLIC_URL: where browsers
    # read the objects, else they are served through /media/... from the bucket).
    # (Not under uploaded_files/: Reflex serves that directory as it is at /_upload.)
    media_dir: Path = field(default_factory=lambda: Path(_env("MEDIA_DIR", str(ROOT / "media"))))
    # Uploads are written here while they arrive (on disk, never held in memory), then stored.
    upload_tmp_dir: Path = field(
        default_factory=lambda: Path(_env("UPLOAD_TMP_DIR", str(ROOT / "media" / ".incoming")))
    )
    s3_bucket: str = field(default_factory=lambda: _env("S3_BUCKET"))
    s3_endpoint_url: str = field(default_factory=lambda: _env("S3_ENDPOINT_URL"))
    s3_region: str = field(default_factory=lambda: _env("S3_REGION", "us-east-1"))
    s3_access_key_id: str = field(default_factory=lambda: _env("S3_ACCESS_KEY_ID"))
    s3_secret_access_key: str = field(default_factory=lambda: _env("S3_SECRET_ACCESS_KEY"))
    s3_public_url: str = field(default_factory=lambda: _env("S3_PUBLIC_URL").rstrip("/"))
    # Payouts (issue 37; portal/domain/payout_choice.py): auto | tremendous | manual. `payout_provider_name` is
    # the one in use ("tremendous" or "manual"); `local_payouts_active`: Tremendous is the local stand-in at
    # /local-payouts (its key, campaign, funding source, webhook key and address are then derived, see
    # __post_init__).
    payout_provider: str = field(default_factory=lambda: _env("PAYOUT_PROVIDER", "auto"))
    payout_provider_name: str = field(default=payout_choice.MANUAL, init=False)
    local_payouts_active: bool = field(default=False, init=False)
    tremendous_api_key: str = field(default_factory=lambda: _env("TREMENDOUS_API_KEY"))
    # sandbox (Tremendous's testflight host) | production; TREMENDOUS_API_URL overrides the address.
    tremendous_environment: str = field(default_factory=lambda: _env("TREMENDOUS_ENVIRONMENT", "sandbox").lower())
    tremendous_api_url: str = field(default_factory=lambda: _env("TREMENDOUS_API_URL").rstrip("/"))
    tremendous_campaign_id: str = field(default_factory=lambda: _env("TREMENDOUS_CAMPAIGN_ID"))
    tremendous_funding_source_id: str = field(default_factory=lambda: _env("TREMENDOUS_FUNDING_SOURCE_ID", "BALANCE"))
    # The private key of the portal's Tremendous webhook (its signatures are checked with it).
    tremendous_webhook_key: str = field(default_factory=lambda: _env("TREMENDOUS_WEBHOOK_KEY"))
    payout_timeout_seconds: float = field(default_factory=lambda: float(_env("PAYOUT_TIMEOUT_SECONDS", "10")))
    # The local stand-in: its own SQLite file, and how long after an order its e-mail is delivered.
    local_payouts_db: Path = field(
        default_factory=lambda: Path(_env("LOCAL_PAYOUTS_DB", str(ROOT / "local-payouts.db")))
    )
    local_payouts_delivery_seconds: float = field(
        default_factory=lambda: float(_env("LOCAL_PAYOUTS_DELIVERY_SECONDS", "5"))
    )
    # Text messages (issue 38; portal/domain/sms_choice.py): auto | twilio | off. `sms_active`: texts can be sent;
    # `local_sms_active`: through Twilio's local stand-in at /local-sms (its account, token and number derived).
    sms_provider: str = field(default_factory=lambda: _env("SMS_PROVIDER", "auto"))
    sms_active: bool = field(default=False, init=False)
    local_sms_active: bool = field(default=False, init=False)
    twilio_account_sid: str = field(default_factory=lambda: _env("TWILIO_ACCOUNT_SID"))
    twilio_auth_token: str = field(default_factory=lambda: _env("TWILIO_AUTH_TOKEN"))
    # The sender: a number of the account (E.164) or a messaging service (MG...).
    twilio_from: str = field(default_factory=lambda: _env("TWILIO_FROM"))
    # Twilio's API address (the stand-in's when it runs; another only for a proxy).
    twilio_api_url: str = field(default_factory=lambda: _env("TWILIO_API_URL").rstrip("/"))
    sms_poll_seconds: float = field(default_factory=lambda: float(_env("SMS_POLL_SECONDS", "2")))
    local_sms_db: Path = field(default_factory=lambda: Path(_env("LOCAL_SMS_DB", str(ROOT / "local-sms.db"))))
    # Partner round trips (issue 39, item 5; portal/domain/partners.py, portal/services/partners.py).
    # The external research-participant service: its API address (RESPONDENT_API_URL, the base the portal adds
    # /respondent-participant and /completions to) and key (RESPONDENT_API_KEY). Neither set on a loopback
    # BASE_URL: its local stand-in at /local-respondent (`local_respondent_active`; its key derived from SECRET_KEY).
    # Off loopback with no key, respondents of the service cannot be checked and are not admitted.
    respondent_api_url: str = field(default_factory=lambda: _env("RESPONDENT_API_URL").rstrip("/"))
    respondent_api_key: str = field(default_factory=lambda: _env("RESPONDENT_API_KEY"))
    local_respondent_active: bool = field(default=False, init=False)
    # The panel exchange: its name in entry links (`panel=`), the shared secret its links, exits and callbacks are
    # signed with, where participants go back to (PANEL_EXCHANGE_EXIT_URL) and where the server-to-server
    # callback is posted (PANEL_EXCHANGE_CALLBACK_URL). No secret on a loopback BASE_URL: the local stand-in at
    # /local-panel (`local_panel_active`; name "local-panel", secret derived from SECRET_KEY).
    panel_exchange_name: str = field(default_factory=lambda: _env("PANEL_EXCHANGE_NAME", "cint"))
    panel_exchange_secret: str = field(default_factory=lambda: _env("PANEL_EXCHANGE_SECRET"))
    panel_exchange_exit_url: str = field(default_factory=lambda: _env("PANEL_EXCHANGE_EXIT_URL"))
    panel_exchange_callback_url: str = field(default_factory=lambda: _env("PANEL_EXCHANGE_CALLBACK_URL"))
    local_panel_active: bool = field(default=False, init=False)
    # The partner stand-ins' own SQLite file; the time an outside call may take; how often callbacks are sent.
    local_partners_db: Path = field(
        default_factory=lambda: Path(_env("LOCAL_PARTNERS_DB", str(ROOT / "local-partners.db")))
    )
    partner_timeout_seconds: float = field(default_factory=lambda: float(_env("PARTNER_TIMEOUT_SECONDS", "10")))
    partner_poll_seconds: float = field(default_factory=lambda: float(_env("PARTNER_POLL_SECONDS", "2")))

    def __post_init__(self) -> None:
        if not 0 <= self.state_lease_seconds <= MAX_STATE_LEASE_SECONDS:
            raise SystemExit(
                f"Setting STATE_LEASE_SECONDS must be 0 to {MAX_STATE_LEASE_SECONDS}, got {self.state_lease_seconds}"
            )
        if self.listen_host:
            try:
                ipaddress.ip_address(self.listen_host)
            except ValueError:
                raise SystemExit(
                    f"Setting LISTEN_HOST must be an IP address (e.g. 0.0.0.0), got {self.listen_host!r}"
                ) from None
        self._choose_payouts()
        self._choose_sms()
        self._choose_partners()
        configured = tuple(p for p in local_oidc.TENANTS if getattr(self, f"{p}_client_id"))
        if not local_oidc.active(self.local_oidc, self.base_url, configured):
            return
        object.__setattr__(self, "local_oidc_active", True)
        for tenant in local_oidc.TENANTS:
            object.__setattr__(self, f"{tenant}_client_id", local_oidc.client_id(tenant))
            object.__setattr__(self, f"{tenant}_client_secret", self.local_oidc_secret(tenant))
            object.__setattr__(self, f"{tenant}_metadata_url", local_oidc.metadata_url(self.base_url, tenant))

    def _choose_payouts(self) -> None:
        try:
            choice = payout_choice.choose(self.payout_provider, self.tremendous_api_key, self.base_url)
            if choice.provider == payout_choice.TREMENDOUS and not choice.standin:
                payout_choice.host(self.tremendous_environment, self.tremendous_api_url)
        except payout_choice.PayoutSettingRefused as exc:
            raise SystemExit(f"Setting {exc}") from None
        if choice.provider == payout_choice.TREMENDOUS and not choice.standin and not self.tremendous_campaign_id:
            raise SystemExit(
                "Setting TREMENDOUS_CAMPAIGN_ID is required with TREMENDOUS_API_KEY (the campaign whose gift cards, "
                "VISA, PayPal and charities a recipient chooses from)."
            )
        object.__setattr__(self, "payout_provider_name", choice.provider)
        if not choice.standin:
            return
        object.__setattr__(self, "local_payouts_active", True)
        object.__setattr__(self, "tremendous_api_key", self.local_payouts_secret("api-key"))
        object.__setattr__(self, "tremendous_campaign_id", "LOCAL" + self.local_payouts_secret("campaign")[:7].upper())
        object.__setattr__(self, "tremendous_funding_source_id", "BALANCE")
        object.__setattr__(self, "tremendous_webhook_key", self.local_payouts_secret("webhook"))
        object.__setattr__(self, "tremendous_api_url", f"{self.base_url}{payout_choice.API_PATH}")

    def _choose_sms(self) -> None:
        try:
            choice = sms_choice.choose(self.sms_provider, self.twilio_account_sid, self.base_url)
        except sms_choice.SmsSettingRefused as exc:
            raise SystemExit(f"Setting {exc}") from None
        if choice.provider == sms_choice.OFF:
            return
        if not choice.standin and not (self.twilio_auth_token and self.twilio_from):
            raise SystemExit("Settings TWILIO_AUTH_TOKEN and TWILIO_FROM are required with TWILIO_ACCOUNT_SID.")
        object.__setattr__(self, "sms_active", True)
        if not choice.standin:
            object.__setattr__(self, "twilio_api_url", self.twilio_api_url or sms_choice.TWILIO_API)
            return
        object.__setattr__(self, "local_sms_active", True)
        object.__setattr__(self, "twilio_account_sid", "AC" + self.local_payouts_secret("sms-account")[:32])
        object.__setattr__(self, "twilio_auth_token", self.local_payouts_secret("sms-token")[:32])
        object.__setattr__(self, "twilio_from", "+15005550006")  # Twilio's own test number for a valid sender
        object.__setattr__(self, "twilio_api_url", f"{self.base_url}{sms_choice.PREFIX}")

    def _choose_partners(self) -> None:
        """The partners' local stand-ins stand in for what is not configured, on a loopback BASE_URL only."""
        if not local_oidc.is_loopback(self.base_url):
            return
        if not self.respondent_api_key and not self.respondent_api_url:
            object.__setattr__(self, "local_respondent_active", True)
            object.__setattr__(self, "respondent_api_key", self.local_payouts_secret("respondent")[:40])
            object.__setattr__(self, "respondent_api_url", f"{self.base_url}/local-respondent/api/v1")
        if not self.panel_exchange_secret:
            object.__setattr__(self, "local_panel_active", True)
            object.__setattr__(self, "panel_exchange_name", "local-panel")
            object.__setattr__(self, "panel_exchange_secret", self.local_payouts_secret("panel-exchange")[:48])
            object.__setattr__(self, "panel_exchange_exit_url", f"{self.base_url}/local-panel/exit")
            object.__setattr__(self, "panel_exchange_callback_url", f"{self.base_url}/local-panel/api/callbacks")

    def local_payouts_secret(self, purpose: str) -> str:
        """A value of the local payout stand-in, derived from SECRET_KEY (never configured by hand)."""
        return hmac.new(self.secret_key.encode(), f"local-payouts:{purpose}".encode(), hashlib.sha256).hexdigest()

    @property
    def tremendous_host(self) -> str:
        """Tremendous's API address: TREMENDOUS_API_URL (or the stand-in's), else the environment's."""
        return payout_choice.host(self.tremendous_environment, self.tremendous_api_url)

    def local_oidc_secret(self, tenant: str) -> str:
        """The stand-in's client secret for a tenant, derived from SECRET_KEY (never configured by hand)."""
        return hmac.new(self.secret_key.encode(), f"local-oidc:{tenant}".encode(), hashlib.sha256).hexdigest()

    def oidc_configured(self, provider: str) -> bool:
        """Whether sign-in with this provider ('linkedin' or 'google') is offered."""
        return bool(getattr(self, f"{provider}_client_id", "")) if provider in ("linkedin", "google") else False

    @property
    def listen_address(self) -> str:
        """LISTEN_HOST, else this machine only on a loopback BASE_URL (a `make run` stays a local tool:
        nobody on the same network reaches it, nor the local sign-in stand-in), else every interface."""
        if self.listen_host:
            return self.listen_host
        if not local_oidc.is_loopback(self.base_url):
            return "0.0.0.0"
        host = (urlsplit(self.base_url).hostname or "").strip("[]")
        try:
            return str(ipaddress.ip_address(host))  # 127.0.0.1, ::1 or another loopback address as written
        except ValueError:
            return "127.0.0.1"  # localhost

    @property
    def base_origin(self) -> str:
        """scheme://host[:port] of BASE_URL: the only origin the portal's pages are served from."""
        parts = urlsplit(self.base_url)
        scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
        default_port = {"http": 80, "https": 443}.get(scheme)
        port = f":{parts.port}" if parts.port and parts.port != default_port else ""
        return f"{scheme}://{f'[{host}]' if ':' in host else host}{port}"

    @property
    def cors_allowed_origins(self) -> list[str]:
        """Origins allowed to read the portal's answers and open its websocket (BASE_URL's first)."""
        origins = [self.base_origin]
        # A local run is opened as localhost or as 127.0.0.1 alike (the README says localhost:3000).
        parts = urlsplit(self.base_origin)
        if parts.hostname in _LOOPBACK_NAMES:
            port = f":{parts.port}" if parts.port else ""
            origins += [
                f"{parts.scheme}://{name}{port}"
                for name in ("localhost", "127.0.0.1", "[::1]")
                if f"{parts.scheme}://{name}{port}" not in origins
            ]
        origins += [o for o in self.cors_extra_origins if o not in origins]
        return origins

    @property
    def sentry_environment_name(self) -> str:
        """SENTRY_ENVIRONMENT, else "development" on a loopback BASE_URL and "production" elsewhere."""
        return self.sentry_environment or ("development" if local_oidc.is_loopback(self.base_url) else "production")

    @property
    def captcha_enabled(self) -> bool:
        return self.captcha_provider in {"recaptcha", "hcaptcha", "turnstile"}

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


settings = Settings()
