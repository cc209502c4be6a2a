"""Where uploaded files live: one interface, a local directory by default, an S3-compatible object
store when S3_BUCKET is set (so several machines serve the same files).

Keys are the storage's own names, made by the portal (never by a browser): lower-case letters,
digits, '.', '_' and '-' in '/'-separated parts, such as `images/<sha256>.png`. Content-addressed
keys never change their content, so their answers may be cached for a year.

Every method blocks (disk or network): call them from a thread, never on the event loop.
"""

from __future__ import annotations

import functools
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Protocol

from portal.settings import Settings, settings

MEDIA_PREFIX = "/media"  # the portal's own route that serves stored files (portal/http/media_routes.py)
CHUNK = 1024 * 1024
_KEY = re.compile(r"[a-z0-9][a-z0-9._-]{0,127}(?:/[a-z0-9][a-z0-9._-]{0,127}){0,7}")


def valid_key(key: object) -> bool:
    """Whether `key` is a storage key: no '..', no leading '/', no backslash, nothing else sneaked in."""
    return isinstance(key, str) and bool(_KEY.fullmatch(key)) and ".." not in key


class StorageError(Exception):
    """A stored object is missing or the store could not be reached."""


class Storage(Protocol):
    def put(self, key: str, stream: BinaryIO, content_type: str) -> None:
        """Store the stream's bytes (from its current position) under `key`, replacing any."""

    def url(self, key: str) -> str:
        """Where browsers read the object."""

    def open(self, key: str) -> Iterator[bytes]:
        """The object's bytes, chunk by chunk (StorageError when it does not exist)."""

    def exists(self, key: str) -> bool: ...

    def delete(self, key: str) -> None:
        """Remove the object (nothing happens when it does not exist)."""


def _checked(key: str) -> str:
    if not valid_key(key):
        raise StorageError(f"not a storage key: {key!r}")
    return key


def read_all(storage: Storage, key: str) -> bytes:
    return b"".join(storage.open(key))


class LocalStorage:
    """Files in a directory of this machine, served by the portal at /media/<key>."""

    def __init__(self, directory: Path, public_prefix: str = MEDIA_PREFIX) -> None:
        self.directory = Path(directory)
        self.public_prefix = public_prefix.rstrip("/")

    def path(self, key: str) -> Path:
        """The file of a key, always inside the directory."""
        root = self.directory.resolve()
        path = (root / _checked(key)).resolve()
        if root not in path.parents:
            raise StorageError(f"outside the storage directory: {key!r}")
        return path

    def put(self, key: str, stream: BinaryIO, content_type: str) -> None:
        target = self.path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        # Written beside the target and renamed: a reader never sees half a file.
        with tempfile.NamedTemporaryFile(dir=target.parent, prefix=".part-", delete=False) as part:
            try:
                shutil.copyfileobj(stream, part, CHUNK)
                part.flush()
            except BaseException:
                Path(part.name).unlink(missing_ok=True)
                raise
        Path(part.name).chmod(0o644)
        Path(part.name).replace(target)

    def url(self, key: str) -> str:
        return f"{self.public_prefix}/{_checked(key)}"

    def open(self, key: str) -> Iterator[bytes]:
        try:
            handle = self.path(key).open("rb")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as err:
            raise StorageError(f"no such object: {key!r}") from err

        def chunks() -> Iterator[bytes]:
            with handle:
                while chunk := handle.read(CHUNK):
                    yield chunk

        return chunks()

    def exists(self, key: str) -> bool:
        return self.path(key).is_file()

    def delete(self, key: str) -> None:
        self.path(key).unlink(missing_ok=True)


class S3Storage:
    """Objects in a bucket of any S3-compatible store (AWS S3, MinIO, Ceph, R2, ...), through boto3."""

    def __init__(
        self,
        *,
        bucket: str,
        endpoint_url: str = "",
        region: str = "us-east-1",
        access_key_id: str = "",
        secret_access_key: str = "",
        public_url: str = "",
        public_prefix: str = MEDIA_PREFIX,
    ) -> None:
        import boto3  # only where S3 is configured
        from botocore.config import Config

        self.bucket = bucket
        self.public_url = public_url.rstrip("/")
        self.public_prefix = public_prefix.rstrip("/")
        credentials = (
            {"aws_access_key_id": access_key_id, "aws_secret_access_key": secret_access_key} if access_key_id else {}
        )
        self.client = boto3.client(
            "s3",
            endpoint_url=endpoint_url or None,
            region_name=region or None,
            config=Config(
                retries={"max_attempts": 3, "mode": "standard"},
                connect_timeout=5,
                read_timeout=60,
                s3={"addressing_style": "path"} if endpoint_url else {},
            ),
            **credentials,
        )

    def put(self, key: str, stream: BinaryIO, content_type: str) -> None:
        # Multipart for large files: the stream is read in parts, never whole.
        self.client.upload_fileobj(
            stream,
            self.bucket,
            _checked(key),
            ExtraArgs={"ContentType": content_type, "CacheControl": "public, max-age=31536000, immutable"},
        )

    def url(self, key: str) -> str:
        # Straight from the store when it has a public address, else through the portal's /media route.
        return f"{self.public_url or self.public_prefix}/{_checked(key)}"

    def open(self, key: str) -> Iterator[bytes]:
        from botocore.exceptions import ClientError

        try:
            body = self.client.get_object(Bucket=self.bucket, Key=_checked(key))["Body"]
        except ClientError as err:
            raise StorageError(f"no such object: {key!r}") from err

        def chunks() -> Iterator[bytes]:
            try:
                yield from body.iter_chunks(CHUNK)
            finally:
                body.close()

        return chunks()

    def exists(self, key: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            self.client.head_object(Bucket=self.bucket, Key=_checked(key))
        except ClientError as err:
            if err.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
                return False
            raise
        return True

    def delete(self, key: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=_checked(key))


def storage_for(config: Settings) -> Storage:
    """The storage these settings describe: S3 when a bucket is named, else the local directory."""
    if config.s3_bucket:
        return S3Storage(
            bucket=config.s3_bucket,
            endpoint_url=config.s3_endpoint_url,
            region=config.s3_region,
            access_key_id=config.s3_access_key_id,
            secret_access_key=config.s3_secret_access_key,
            public_url=config.s3_public_url,
        )
    return LocalStorage(config.media_dir)


@functools.cache
def storage() -> Storage:
    """The portal's storage (one per process)."""
    return storage_for(settings)
