"""Command line of the portal: `python -m portal.cli COMMAND`.

Commands: migrate, seed-reference, seed-demo, import-test FILE.json,
create-staff EMAIL --role ROLE [--password P], outbox [--limit N] [--pending],
mark-reward-paid REWARD_ID, auto-approve-reviews, launch-scheduled, two-factor-code KEY.
Expected failures print one clear line to stderr and exit with status 2
(1 for database problems), never a traceback.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from portal.domain.staff.roles import ROLES
from portal.settings import ROOT, settings

EXIT_USAGE = 2
EXIT_DATABASE = 1


class CliError(Exception):
    """A failure to report in one line, with an exit status."""

    def __init__(self, message: str, status: int = EXIT_USAGE):
        super().__init__(message)
        self.status = status


# --- output helpers -------------------------------------------------------------------


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
    line = "  ".join("-" * w for w in widths)
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip())
    print(line)
    for row in cells:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    return str(value)


# --- commands -----------------------------------------------------------------------------


def cmd_migrate(_args: argparse.Namespace) -> None:
    from alembic.config import Config

    from alembic import command

    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("sqlalchemy.url", settings.database_url)
    command.upgrade(config, "head")
    print("Database is up to date.")


def cmd_seed_reference(_args: argparse.Namespace) -> None:
    from portal.db import session_scope
    from portal.services.seeding import seed_reference

    with session_scope() as session:
        seed_reference(session)
    print("Reference data is in place.")


def cmd_seed_demo(_args: argparse.Namespace) -> None:
    from portal.db import session_scope
    from portal.services.seeding import seed_demo

    with session_scope() as session:
        accounts = seed_demo(session)
    print("Demo data is in place. Demo accounts:\n")
    print_table(("role", "email", "password"), accounts)
    if settings.local_oidc_active:
        print(
            f"\nLinkedIn and Google are not configured: their buttons open the local sign-in stand-in at "
            f"{settings.base_url}/local-oidc/ (not LinkedIn or Google; see README.md)."
        )


def cmd_import_test(args: argparse.Namespace) -> None:
    from portal.db import session_scope
    from portal.services.definition_import import TestDefinitionError, import_test

    data = read_json(Path(args.file))
    try:
        with session_scope() as session:
            test = import_test(session, data)
            test_id, name = test.id, test.name
    except TestDefinitionError as exc:
        raise CliError(f"Invalid test definition in {args.file}:\n{exc.message}") from None
    print(f"Imported test #{test_id}: {name}")


def read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CliError(f"Cannot read {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"Cannot read {path}: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CliError(f"{path} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None


def cmd_create_staff(args: argparse.Namespace) -> None:
    from portal.db import session_scope
    from portal.services.errors import ServiceError
    from portal.services.staff import create_staff

    password = args.password
    if password is None:
        password = getpass.getpass("Password: ")
        if getpass.getpass("Repeat password: ") != password:
            raise CliError("The passwords don't match")
    try:
        with session_scope() as session:
            account, created = create_staff(session, email=args.email, role=args.role, password=password)
            email = account.email
    except ServiceError as exc:
        raise CliError(exc.message) from None
    print(f"{'Created' if created else 'Updated'} staff account {email} ({args.role}).")


def cmd_outbox(args: argparse.Namespace) -> None:
    from sqlmodel import select

    from portal.db import session_scope
    from portal.models import OutboxEmail

    with session_scope() as session:
        query = select(OutboxEmail).order_by(OutboxEmail.created_at.desc(), OutboxEmail.id.desc()).limit(args.limit)
        if args.pending:
            query = query.where(OutboxEmail.sent_at.is_(None))
        rows = [(m.to_address, m.subject, m.created_at, m.sent_at, m.link) for m in session.exec(query).all()]
    if not rows:
        print("The outbox is empty.")
        return
    print_table(("to", "subject", "created", "sent", "link"), rows)


def cmd_mark_reward_paid(args: argparse.Namespace) -> None:
    from portal.db import session_scope
    from portal.domain.table import format_money
    from portal.services.admin.rewards import mark_reward_paid
    from portal.services.errors import ServiceError

    try:
        with session_scope() as session:
            reward, bonus = mark_reward_paid(session=session, reward_id=args.reward_id)
            line = f"Reward {reward.id} is paid ({reward.status}, {reward.paid_on:%Y-%m-%d %H:%M} UTC)."
            if bonus is not None:
                line += (
                    f" Referral bonus {format_money(bonus.amount_cents)} credited to account "
                    f"{bonus.account_id} (reward {bonus.id})."
                )
    except ServiceError as exc:
        raise CliError(exc.message) from None
    print(line)


def cmd_auto_approve(_args: argparse.Namespace) -> None:
    from portal.db import session_scope
    from portal.services.admin.reviews import auto_approve

    with session_scope() as session:
        count = auto_approve(session=session)
    print(f"Approved {count} review{'s' if count != 1 else ''} nobody decided in {settings.auto_approve_days} days.")


def cmd_pay_rewards(_args: argparse.Namespace) -> None:
    from portal.services.payout_runner import run_round

    done = run_round()
    print(f"Ordered {done.ordered} reward{'s' if done.ordered != 1 else ''}; reconciled {done.reconciled}.")


def cmd_quality_flags(_args: argparse.Namespace) -> None:
    from portal.db import session_scope
    from portal.services.quality_flags import refresh_due

    with session_scope() as session:
        count = refresh_due(session=session)
    print(f"Computed the quality flags of {count} test{'s' if count != 1 else ''}.")


def cmd_remind_invites(_args: argparse.Namespace) -> None:
    from portal.db import session_scope
    from portal.services.invite_reminders import remind

    with session_scope() as session:
        count = remind(session=session)
    print(f"Queued {count} invite reminder{'s' if count != 1 else ''}.")


def cmd_launch_scheduled(_args: argparse.Namespace) -> None:
    from portal.db import session_scope
    from portal.services.admin.launches import launch_scheduled

    with session_scope() as session:
        launched = launch_scheduled(session=session)
    ids = ", ".join(str(i) for i in launched)
    print(f"Launched {len(launched)} scheduled test{'s' if len(launched) != 1 else ''}" + (f": {ids}." if ids else "."))


def cmd_two_factor_code(args: argparse.Namespace) -> None:
    """What an authenticator app would show now for a key (for a local run with no app at hand)."""
    import pyotp

    from portal.domain import two_factor

    key = "".join(str(args.key).split()).upper()
    try:
        code = pyotp.TOTP(key, digits=two_factor.DIGITS, interval=two_factor.PERIOD).now()
    except Exception as err:  # binascii.Error and friends: not a base32 key
        raise CliError("That is not an authenticator key (the letters and digits shown under the QR code).") from err
    print(code)


# --- parser -------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m portal.cli", description="Participant portal administration.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, handler: Callable[[argparse.Namespace], None], help_text: str) -> argparse.ArgumentParser:
        command = sub.add_parser(name, help=help_text, description=help_text)
        command.set_defaults(handler=handler)
        return command

    add("migrate", cmd_migrate, "Upgrade the database (DATABASE_URL) to the latest schema.")
    add("seed-reference", cmd_seed_reference, "Insert missing reference data (sizes, industries, roles, flags...).")
    add("seed-demo", cmd_seed_demo, "Insert the reference data, demo tests and demo accounts.")
    imp = add("import-test", cmd_import_test, "Import (create or update by name) a test from a JSON definition.")
    imp.add_argument("file", metavar="FILE.json", help="a test definition, see docs/test-format.md")
    staff = add("create-staff", cmd_create_staff, "Create a staff account, or give an account a staff role.")
    staff.add_argument("email")
    staff.add_argument("--role", required=True, choices=ROLES)
    staff.add_argument("--password", help="the password (asked for when left out)")
    outbox = add("outbox", cmd_outbox, "List e-mails in the outbox, newest first.")
    outbox.add_argument("--limit", type=int, default=50, help="how many rows to show (default 50)")
    outbox.add_argument("--pending", action="store_true", help="only e-mails not sent yet")
    add(
        "auto-approve-reviews",
        cmd_auto_approve,
        "Approve reviews nobody decided in AUTO_APPROVE_DAYS (the hourly job, once).",
    )
    add(
        "launch-scheduled",
        cmd_launch_scheduled,
        "Start the scheduled tests whose time has come (the job every worker runs every 30 s, once).",
    )
    add(
        "remind-invites",
        cmd_remind_invites,
        "E-mail a reminder of each open invite about to expire (the job every worker runs every 5 minutes, once).",
    )
    add(
        "pay-rewards",
        cmd_pay_rewards,
        "Order approved rewards from the payout provider and reconcile sent ones (the job every worker runs, once).",
    )
    add(
        "quality-flags",
        cmd_quality_flags,
        "Compute the review quality flags of every test with new reviews (the job every worker runs, once).",
    )
    code = add(
        "two-factor-code",
        cmd_two_factor_code,
        "Print the code an authenticator app shows now for KEY (the key under the QR code in account settings).",
    )
    code.add_argument("key", metavar="KEY")
    paid = add("mark-reward-paid", cmd_mark_reward_paid, "Mark a reward paid (EXECUTED) and credit any referral bonus.")
    paid.add_argument("reward_id", metavar="REWARD_ID", type=int)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.handler(args)
    except CliError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return exc.status
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        print(
            f"Database error: {reason}\n(Is DATABASE_URL right, and has `python -m portal.cli migrate` been run?)",
            file=sys.stderr,
        )
        return EXIT_DATABASE
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
