"""Answers of /api/v1/tests/{id}/results: the aggregates of the staff results page."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from portal.domain.results.filters import COMPANY_SIZES, SENIORITIES

# The choices are the domain's own tuples (mypy reads them as plain strings).
if TYPE_CHECKING:
    Seniority = str
    CompanySize = str
else:
    Seniority = Literal[tuple(SENIORITIES)]
    CompanySize = Literal[tuple(COMPANY_SIZES)]


class ResultsFiltersOut(BaseModel):
    seniority: str | None
    country: str | None
    company_size: str | None
    version: int | None
    since: date | None
    until: date | None
    excluded: bool = Field(description="Whether excluded and rejected reviews are counted.")


class ResultsFunnelOut(BaseModel):
    """The whole test, whatever the filters."""

    invited: int
    started: int
    submitted: int
    approved: int


class ResultsTimingOut(BaseModel):
    median_seconds: float | None = Field(description="From the start of the session to the submission.")
    fastest_seconds: float | None = Field(description="The 25th percentile.")
    slowest_seconds: float | None = Field(description="The 75th percentile.")
    timed: int = Field(description="Reviews whose time is known.")


class ResultsIntervalOut(BaseModel):
    low: float
    high: float


class ResultsShareOut(BaseModel):
    key: str = Field(description="The option's (or concept's) value; `__other__` for typed 'Other' answers.")
    label: str
    count: int
    share: float = Field(description="0 to 1 of the answers counted.")
    interval: ResultsIntervalOut | None = Field(description="Its 95% (Wilson) interval; null without answers.")


class ResultsTextOut(BaseModel):
    text: str
    words: int


class ResultsQuestionOut(BaseModel):
    key: str
    title: str
    type: str = Field(description="The question's type (single-choice, rating, long-text, ...).")
    area: int | None = Field(description="The highlight area (1-based) the question was asked about.")
    shape: Literal["choice", "multi", "rating", "number", "rank", "matrix", "text", "none"] = Field(
        description="Which of the fields below hold its summary."
    )
    answered: int = Field(description="Reviews that answered it.")
    shares: list[ResultsShareOut] = Field(description="choice, multi, rating: each option or scale value.")
    labels: dict[str, str] = Field(description="Option, scale or statement value -> its label.")
    mean: float | None = Field(description="rating, number.")
    median: float | None = Field(description="number.")
    low: float | None = Field(description="number: the smallest.")
    high: float | None = Field(description="number: the largest.")
    positions: dict[str, float] = Field(description="rank: option -> its mean position (1 = first).")
    table: dict[str, dict[str, int]] = Field(description="matrix: statement -> answer -> count.")
    texts: list[ResultsTextOut] = Field(description="text: the answers typed, in the order given.")


class ResultsConceptOut(BaseModel):
    key: str
    label: str
    url: str


class ResultsOrderCellOut(BaseModel):
    shown: int = Field(description="How many saw this concept at this position.")
    chosen: int = Field(description="... and chose it.")
    share: float


class ResultsPreferenceOut(BaseModel):
    prompt: str
    concepts: list[ResultsConceptOut]
    shares: list[ResultsShareOut] = Field(description="Per concept, in the test's order.")
    answered: int
    by_position: list[int] = Field(description="Choices that fell on each shown position, whatever the concept.")
    order: list[dict[str, ResultsOrderCellOut]] = Field(description="Per shown position: concept key -> its cell.")


class ResultsAreaOut(BaseModel):
    number: int = Field(description="1-based, as the participant saw it.")
    box: list[float] = Field(description="left, top, right, bottom in percent of the screenshot.")
    answered: int
    questions: list[str] = Field(description="The keys of its questions.")


class ResultsOut(BaseModel):
    test_id: int
    name: str
    product_type: str
    versions: list[int] = Field(description="The test's version numbers, newest first.")
    filters: ResultsFiltersOut
    funnel: ResultsFunnelOut
    reviews: int = Field(description="Reviews the filters chose (excluded and rejected ones left out by default).")
    excluded_left_out: int = Field(description="Reviews the filters chose but left out as excluded or rejected.")
    screenshot: str | None = Field(description="The screenshot a highlight or pricing test's areas are drawn on.")
    timing: ResultsTimingOut
    questions: list[ResultsQuestionOut]
    preference: ResultsPreferenceOut | None = Field(description="A preference test's concepts and choices.")
    areas: list[ResultsAreaOut]
