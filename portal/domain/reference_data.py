"""Reference data of the spec: segments, option lists, enumerations and the seed lists.

Pure constants, no I/O. The seeding service writes the table-backed parts
(company sizes, industries, roles, audiences, qualifications); the rest are
enumerations used directly by the domain rules and the UI.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Option:
    """A value stored in the database and the label a person sees."""

    value: str
    label: str


@dataclass(frozen=True)
class CompanySizeSegment:
    """A company-size segment; its key is also the `company_size.id`."""

    id: str
    min_size: int
    max_size: int | None

    @property
    def without_max_size(self) -> bool:
        return self.max_size is None


@dataclass(frozen=True)
class AudienceSeed:
    name: str
    type: str  # mturk | b2b | custom


@dataclass(frozen=True)
class QualificationSeed:
    name: str
    level: str | None
    is_public: bool = False


# --- Company sizes -----------------------------------------------------------

COMPANY_SIZE_SEGMENTS: tuple[CompanySizeSegment, ...] = (
    CompanySizeSegment("solo", 1, 1),
    CompanySizeSegment("micro", 2, 9),
    CompanySizeSegment("small", 10, 49),
    CompanySizeSegment("medium", 50, 199),
    CompanySizeSegment("midMarket", 200, 999),
    CompanySizeSegment("enterprise", 1000, None),
)


def segment_for_size(employees: int) -> CompanySizeSegment | None:
    """The segment a head count falls in, or None for counts below 1."""
    for segment in COMPANY_SIZE_SEGMENTS:
        if employees >= segment.min_size and (segment.max_size is None or employees <= segment.max_size):
            return segment
    return None


# --- Profile options ---------------------------------------------------------

SENIORITY_OPTIONS: tuple[Option, ...] = (
    Option("founder", "Founder (excluding one-person businesses)"),
    Option("senior", "Senior (executive management such as C-level, VPs)"),
    Option("middle", "Middle (managers of teams, directors, heads)"),
    Option("specialist", "Specialist (non-managing, including freelancers)"),
)
SENIORITY_KEYS: tuple[str, ...] = tuple(o.value for o in SENIORITY_OPTIONS)
# Tests may also set a quota for a customer-defined 'custom' seniority level.
TEST_SENIORITY_KEYS: tuple[str, ...] = (*SENIORITY_KEYS, "custom")

LANGUAGE_OPTIONS: tuple[Option, ...] = (
    Option("english", "English"),
    Option("dutch", "Dutch"),
    Option("portuguese", "Portuguese"),
    Option("spanish", "Spanish"),
    Option("italian", "Italian"),
    Option("french", "French"),
    Option("german", "German"),
    Option("none", "None of these"),
)

# --- Industries and roles (seeded into tables) -------------------------------

INDUSTRIES: tuple[str, ...] = (
    "Accounting",
    "Advertising & Marketing",
    "Aerospace & Defense",
    "Agriculture",
    "Airlines & Aviation",
    "Apparel & Fashion",
    "Architecture & Planning",
    "Automotive",
    "Banking",
    "Biotechnology",
    "Chemicals",
    "Civil Engineering",
    "Computer Hardware",
    "Computer Software",
    "Construction",
    "Consulting",
    "Consumer Electronics",
    "Consumer Goods",
    "Cybersecurity",
    "E-commerce",
    "Education",
    "Energy & Utilities",
    "Entertainment",
    "Environmental Services",
    "Events Services",
    "Financial Services",
    "Food & Beverages",
    "Gambling & Casinos",
    "Government Administration",
    "Healthcare",
    "Hospitality",
    "Human Resources",
    "Information Technology & Services",
    "Insurance",
    "Internet",
    "Investment Management",
    "Legal Services",
    "Logistics & Supply Chain",
    "Manufacturing",
    "Media & Publishing",
    "Medical Devices",
    "Mining & Metals",
    "Non-profit",
    "Oil & Gas",
    "Pharmaceuticals",
    "Professional Training & Coaching",
    "Public Relations",
    "Real Estate",
    "Recruiting & Staffing",
    "Research",
    "Restaurants",
    "Retail",
    "Semiconductors",
    "Sports",
    "Telecommunications",
    "Tobacco",
    "Transportation",
    "Travel & Tourism",
    "Venture Capital & Private Equity",
    "Wholesale",
)
# Industries kept for old profiles but no longer offered to testers.
INACTIVE_INDUSTRIES: frozenset[str] = frozenset({"Gambling & Casinos", "Tobacco", "Mining & Metals"})

ROLES: tuple[str, ...] = (
    "Account Executive",
    "Account Manager",
    "Accountant",
    "Administrative Assistant",
    "Backend Developer",
    "Brand Manager",
    "Business Analyst",
    "Business Development Manager",
    "Buyer",
    "Chief Executive Officer",
    "Chief Financial Officer",
    "Chief Marketing Officer",
    "Chief Operating Officer",
    "Chief Technology Officer",
    "Cloud Architect",
    "Community Manager",
    "Compliance Officer",
    "Content Marketer",
    "Controller",
    "Copywriter",
    "Customer Success Manager",
    "Customer Support Specialist",
    "Data Analyst",
    "Data Engineer",
    "Data Scientist",
    "Database Administrator",
    "Demand Generation Manager",
    "DevOps Engineer",
    "Digital Marketing Manager",
    "Director of Engineering",
    "Director of Marketing",
    "Director of Sales",
    "Engineering Manager",
    "Facilities Manager",
    "Financial Analyst",
    "Founder",
    "Frontend Developer",
    "Full-stack Developer",
    "Growth Marketer",
    "HR Business Partner",
    "HR Manager",
    "IT Manager",
    "IT Support Specialist",
    "Legal Counsel",
    "Machine Learning Engineer",
    "Marketing Operations Manager",
    "Mobile Developer",
    "Network Engineer",
    "Office Manager",
    "Operations Manager",
    "Partnerships Manager",
    "Payroll Specialist",
    "Performance Marketer",
    "Procurement Manager",
    "Product Designer",
    "Product Manager",
    "Product Marketing Manager",
    "Program Manager",
    "Project Manager",
    "QA Engineer",
    "Recruiter",
    "Revenue Operations Manager",
    "Risk Manager",
    "Sales Development Representative",
    "Sales Engineer",
    "Sales Manager",
    "Sales Operations Manager",
    "Security Engineer",
    "SEO Specialist",
    "Site Reliability Engineer",
    "Social Media Manager",
    "Software Architect",
    "Software Engineer",
    "Solutions Architect",
    "Supply Chain Manager",
    "Talent Acquisition Manager",
    "Technical Writer",
    "UX Researcher",
    "VP of Engineering",
    "VP of Marketing",
    "VP of Sales",
)

AUDIENCE_TYPES: tuple[str, ...] = ("mturk", "b2b", "custom")
AUDIENCES: tuple[AudienceSeed, ...] = (
    AudienceSeed("Consumers (crowd-work)", "mturk"),
    AudienceSeed("B2B professionals", "b2b"),
    AudienceSeed("Custom audience (qualification-based)", "custom"),
)

QUALIFICATIONS: tuple[QualificationSeed, ...] = (
    QualificationSeed("SaaS purchase decision makers", "senior"),
    QualificationSeed("Finance and accounting leaders", "middle"),
    QualificationSeed("Software developers (public)", "specialist", is_public=True),
    QualificationSeed("Marketing community members (public)", None, is_public=True),
)

# --- Tests ---------------------------------------------------------------------

PRODUCT_TYPES: tuple[str, ...] = (
    "b2b-user-testing",
    "buyer-walkthrough",
    "category-buyer-insights",
    "competitor-comparison",
    "demo-product",
    "full-page",
    "jobs-to-be-done",
    "icp-pulse-cbi",
    "icp-pulse-brand-survey",
    "landing-page",
    "live-interviews",
    "market-research",
    "outbound-email",
    "pains-and-gains",
    "preference-test",
    "pricing-test",
    "sales-demo-feedback",
    "single-question-survey",
    "standard",
    "survey",
    "video-test",
    "what-customers-want",
)
TEST_STATUSES: tuple[str, ...] = (
    "draft",
    "ready-to-launch",
    "running",
    "completed",
    "removed",
    "stopped",
    "scheduled",
    "paused",  # paused by participants' reports (portal/domain/problem_reports.py)
)
PANELS: tuple[str, ...] = ("custom", "b2b", "mturk", "external")
SESSION_LENGTHS: tuple[int, ...] = (3600, 900, 300)
QUESTION_TYPES: tuple[str, ...] = (
    "single-choice",
    "multi-choice",
    "editable-single-choice",
    "editable-multi-choice",
    "short-text",
    "long-text",
    "editable-open-ended",
    "number",
    "rank",
    "rating",
    "description",
    "matrix",
)
SCREENER_TYPES: tuple[str, ...] = ("single", "multiple", "matrix")

# --- Invites and rewards -------------------------------------------------------

PAYMENT_STATUSES: tuple[str, ...] = ("PENDING", "EXECUTED", "FAILED", "CANCELED")
INVITE_STATUSES: tuple[str, ...] = ("open", "filled", "completed", "expired", "canceled")
INVITE_LIFETIME_HOURS = 24
