"""How large an uploaded file may be: every upload's limit, in one place.

A limit is enforced while the body arrives (counted chunk by chunk, and at once from a Content-Length
that says more), before the file is kept in full: the test images at their own endpoint
(portal/http/image_routes.py), every upload through Reflex's /_upload at the door in front of it
(portal/http/upload_guard.py), which knows each upload handler's limit from `accept_upload`.
"""

from __future__ import annotations

MB = 1024 * 1024

TEST_IMAGE_BYTES = 250 * MB  # the spec: a test image is "no bigger than 250MB"
TEST_FILE_BYTES = 5 * MB  # a test's JSON definition: hundreds of questions are well under 1 MB

# A multipart body carries its file with a few headers and boundaries around it: the body may be
# this much larger than the file it carries (so the file's own limit gives the file's own message).
MULTIPART_ROOM = 64 * 1024


def in_mb(limit: int) -> int:
    return limit // MB
