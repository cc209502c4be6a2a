"""A mypy plugin: a SQLModel table's field read on the class is a column, read on a row it is the value.

At run time `Invite.status` (on the class) is SQLAlchemy's `InstrumentedAttribute`, so queries write
`Invite.status == "open"`, `Invite.created_at.desc()`, `Invite.id.in_(ids)`; `invite.status` (on a row)
is the `str`. SQLModel annotates fields with the value type only, so without help mypy reads
`Invite.status == "open"` as a `bool` and every query as an error; SQLModel's answer is to wrap each
column in `col(...)`. This plugin gives mypy what SQLAlchemy's own `Mapped[...]` gives it: on the class,
a field of a `table=True` model is `InstrumentedAttribute[<its annotated type>]`; on an instance it
stays the annotated type. Nothing else is changed (methods, ClassVars, `__tablename__`, plain models).

Enabled in pyproject.toml ([tool.mypy] plugins); mypy is pinned in requirements.txt.
"""

from __future__ import annotations

from collections.abc import Callable

from mypy.nodes import NameExpr, TypeInfo, Var
from mypy.plugin import AttributeContext, ClassDefContext, Plugin
from mypy.types import Instance, Type

SQLMODEL = "sqlmodel.main.SQLModel"
COLUMN = "sqlalchemy.orm.attributes.InstrumentedAttribute"
TABLE = "portal_sqlmodel_table"


def _mark_table(ctx: ClassDefContext) -> None:
    """Remember `table=True` on the class (the class body is not in mypy's cache, its metadata is)."""
    flag = ctx.cls.keywords.get("table")
    if isinstance(flag, NameExpr) and flag.name == "True":
        ctx.cls.info.metadata[TABLE] = {}


def _is_table(info: TypeInfo) -> bool:
    """A SQLModel class declared (or inheriting) `table=True`."""
    return info.has_base(SQLMODEL) and any(TABLE in klass.metadata for klass in info.mro)


def _as_column(column: TypeInfo) -> Callable[[AttributeContext], Type]:
    def hook(ctx: AttributeContext) -> Type:
        return ctx.default_attr_type if ctx.is_lvalue else Instance(column, [ctx.default_attr_type])

    return hook


class SQLModelColumns(Plugin):
    def get_base_class_hook(self, fullname: str) -> Callable[[ClassDefContext], None] | None:
        return _mark_table if fullname == SQLMODEL else None

    def get_class_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        class_name, _, name = fullname.rpartition(".")
        if not class_name or name.startswith("_"):
            return None
        symbol = self.lookup_fully_qualified(class_name)
        info = symbol.node if symbol else None
        if not isinstance(info, TypeInfo) or not _is_table(info):
            return None
        field = info.get(name)
        node = field.node if field else None
        if not isinstance(node, Var) or node.is_classvar or node.info.fullname == SQLMODEL:
            return None
        if not node.info.has_base(SQLMODEL):  # pydantic's own attributes (model_config, ...)
            return None
        column = self.lookup_fully_qualified(COLUMN)
        if column is None or not isinstance(column.node, TypeInfo):
            return None
        return _as_column(column.node)


def plugin(_version: str) -> type[Plugin]:
    return SQLModelColumns
