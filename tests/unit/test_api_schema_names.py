"""The API's OpenAPI document (issue 39): every operation has a unique operationId (a generated client's function
names), a summary, a tag and the documented error answers; it is OpenAPI 3.1 and valid."""

from __future__ import annotations

from collections import Counter

from openapi_spec_validator import validate

from portal.api.app import build_v1

METHODS = {"get", "post", "put", "patch", "delete"}


def operations() -> list[tuple[str, str, dict]]:
    schema = build_v1().openapi()
    return [
        (path, method, operation)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


def test_the_document_is_valid_openapi_3_1():
    schema = build_v1().openapi()
    assert schema["openapi"].startswith("3.1")
    validate(schema)


def test_operation_ids_are_unique_and_summaries_and_tags_given():
    found = operations()
    assert found
    counts = Counter(op["operationId"] for _, _, op in found)
    assert [name for name, n in counts.items() if n > 1] == []
    for path, method, op in found:
        assert op.get("summary"), f"{method.upper()} {path} has no summary"
        assert op.get("tags"), f"{method.upper()} {path} has no tag"


def test_every_operation_documents_the_error_shape():
    for path, method, op in operations():
        for status in ("401", "403", "422"):
            answer = op["responses"].get(status)
            assert answer is not None, f"{method.upper()} {path} does not document {status}"
            schema = answer["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/ErrorBody"}
