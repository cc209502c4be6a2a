"""Requests and answers of /api/v1/tests."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import Path
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, RootModel

from portal.domain.ids import MAX_VALUE
from portal.domain.reference_data import PRODUCT_TYPES, TEST_STATUSES

TestId = Annotated[int, Path(ge=1, le=MAX_VALUE, description="The test's id.")]
# The choices are the domain's own tuples (mypy reads them as plain strings).
if TYPE_CHECKING:
    TestStatus = str
    ProductType = str
else:
    TestStatus = Literal[TEST_STATUSES]
    ProductType = Literal[PRODUCT_TYPES]

DEFINITION = (
    "The test's definition document, as the import reads it and the export writes it (docs/test-format.md): "
    "`name`, `productType`, `status`, `panel`, `payoutCents`, ... and the fields of its kind (`survey`, "
    "`questions`, `selectedAreas`, `preferenceTest`)."
)
EXAMPLE_DEFINITION: dict[str, Any] = {
    "name": "Checkout survey",
    "productType": "survey",
    "status": "draft",
    "panel": "b2b",
    "audienceCountry": "US",
    "sessionSeconds": 900,
    "payoutCents": 2000,
    "survey": {
        "welcomePage": {"title": "Welcome", "description": "A few questions about checkout."},
        "thankYouPage": {"title": "Thank you", "description": "Your answers were saved."},
        "questions": [
            {
                "type": "single-choice",
                "key": "q1",
                "text": "How easy was checkout?",
                "options": [{"value": "easy", "label": "Easy"}, {"value": "hard", "label": "Hard"}],
            }
        ],
    },
}


class TestDefinitionIn(RootModel[dict[str, Any]]):
    """A test's definition document (checked by the import's rules when it arrives, not by this schema)."""

    __test__ = False  # not a pytest test class
    model_config = ConfigDict(json_schema_extra={"description": DEFINITION, "examples": [EXAMPLE_DEFINITION]})


class TestOut(BaseModel):
    """A test as lists show it."""

    __test__ = False  # not a pytest test class

    id: int
    name: str
    product_type: str = Field(description="The product type (pricing tier), e.g. `survey`, `landing-page`.")
    status: str = Field(description=f"One of: {', '.join(TEST_STATUSES)}.")
    version: int | None = Field(description="The number of the test's newest version.")
    created_at: datetime
    updated_at: datetime
    launched_at: datetime | None = Field(description="When the test first started running.")
    scheduled_at: datetime | None = Field(description="When a scheduled test starts (UTC); null unless scheduled.")


class TestDetailOut(TestOut):
    """A test with its definition."""

    definition: dict[str, Any] = Field(description=DEFINITION)


class TestUpdatedOut(TestDetailOut):
    new_version: bool = Field(description="Whether the update made a new version (the previous one was in use).")


class TestVersionOut(BaseModel):
    number: int
    created_at: datetime
    created_by: str | None = Field(description="The e-mail of the staff member who made it (null for scripts).")
    source: str = Field(description="What made it: import, edit, builder, api, duplicate, ...")
    source_label: str
    in_progress: int = Field(description="People taking this version now.")
    submitted: int = Field(description="Reviews submitted on this version.")
    sealed: bool = Field(description="Someone started on it: an edit makes the next version.")


class TestVersionsOut(BaseModel):
    data: list[TestVersionOut] = Field(description="Every version, newest first.")


class TestVersionDocumentOut(BaseModel):
    number: int
    definition: dict[str, Any] = Field(description="What this version asks: its versioned fields of the definition.")


class ScheduleIn(BaseModel):
    at: AwareDatetime = Field(
        description="When the test starts, with its offset (e.g. `2026-05-01T14:00:00Z`); to the minute, in the "
        "future.",
        examples=["2026-05-01T14:00:00Z"],
    )
