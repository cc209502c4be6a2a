"""A mypy plugin: what a class attribute is when read on the class, for SQLModel tables and Reflex states.

SQLModel tables. At run time `Invite.status` (on the class) is SQLAlchemy's `InstrumentedAttribute`, so
queries write `Invite.status == "open"`, `Invite.created_at.desc()`, `Invite.id.in_(ids)`; `invite.status`
(on a row) is the `str`. SQLModel annotates fields with the value type only, so without help mypy reads
`Invite.status == "open"` as a `bool` and every query as an error; SQLModel's answer is to wrap each column
in `col(...)`. Here a field of a `table=True` model read on the class is `InstrumentedAttribute[<its type>]`
(what SQLAlchemy's own `Mapped[...]` gives); on a row it stays the annotated type.

Reflex states. At run time `SomeState.count` (on the class, in a page) is a Var (`NumberVar`, `StringVar`,
`ArrayVar` ...) and `self.count` (in an event handler) is the value. Reflex types this through `rx.Field[int]`
annotations (whose overloads mypy, unlike pyright, cannot solve for lists and dicts); the portal's states
annotate the value type (`count: int = 0`). Here a state's annotated field read on the class is the Var
Reflex's `Field.__get__` declares for its type; on `self` it stays the annotated type. And `@rx.event` /
`@rx.event(...)` gets the type Reflex declares for it (`EventNamespace.__new__` returns an `EventCallback`,
an annotation mypy leaves unanalysed): `SomeState.handler(value)` in a page and `self.handler(value)` in a
state are both checked against the handler's parameters.

Nothing else changes: methods, ClassVars, names starting with `_` (backend vars), plain classes.
Enabled in pyproject.toml ([tool.mypy] plugins); mypy is pinned in requirements.txt. A change to this file
makes mypy check everything again (its cache records the plugin's hash).
"""

from __future__ import annotations

from collections.abc import Callable

from mypy.checker import TypeChecker
from mypy.nodes import NameExpr, TypeInfo, Var
from mypy.plugin import AttributeContext, ClassDefContext, FunctionContext, Plugin
from mypy.typeops import bind_self
from mypy.types import (
    CallableType,
    FunctionLike,
    Instance,
    NoneType,
    Overloaded,
    TupleType,
    Type,
    TypeType,
    TypeVarTupleType,
    UnionType,
    UnpackType,
    get_proper_type,
)

SQLMODEL = "sqlmodel.main.SQLModel"
COLUMN = "sqlalchemy.orm.attributes.InstrumentedAttribute"
TABLE = "portal_sqlmodel_table"
STATE = "reflex.state.BaseState"
FIELD = "reflex_base.vars.base.Field"
VARS = "reflex_base.vars"
VAR = "reflex_base.vars.base.Var"
EVENT = "reflex_base.event.EventNamespace"
CALLBACK = "reflex_base.event.EventCallback"


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


def _method_type(info: TypeInfo, name: str) -> FunctionLike | None:
    method = info.get_method(name)
    found = get_proper_type(method.type) if method is not None else None
    return found if isinstance(found, FunctionLike) else None


def _var_for(declared: Type, lookup: Callable[[str], TypeInfo | None]) -> Type | None:
    """The Var a state field of type `declared` is on the class, as Reflex's `Field.__get__` overloads declare
    it (mypy cannot solve those overloads for collections): NoneVar, BooleanVar, NumberVar, StringVar,
    ArrayVar for lists, sets and other sequences, ObjectVar for mappings and dataclasses, else Var."""
    proper = get_proper_type(declared)
    if isinstance(proper, UnionType):  # X | None reads as X
        present = [item for item in proper.items if not isinstance(get_proper_type(item), NoneType)]
        proper = get_proper_type(present[0]) if len(present) == 1 else proper
    choice: tuple[str, list[Type]] = (VAR, [declared])
    if isinstance(proper, NoneType):
        choice = (f"{VARS}.base.NoneVar", [])
    elif isinstance(proper, (Instance, TupleType)):
        instance = proper.partial_fallback if isinstance(proper, TupleType) else proper
        name = instance.type.fullname
        if name == "builtins.bool":
            choice = (f"{VARS}.number.BooleanVar", [])
        elif name in ("builtins.int", "builtins.float"):
            choice = (f"{VARS}.number.NumberVar", [proper])
        elif name == "builtins.str":
            choice = (f"{VARS}.sequence.StringVar", [proper])
        elif name in ("builtins.list", "builtins.set") and instance.args:
            sequence = lookup("typing.Sequence")
            item: list[Type] = [Instance(sequence, [instance.args[0]])] if sequence else [proper]
            choice = (f"{VARS}.sequence.ArrayVar", item)
        elif instance.type.has_base("typing.Sequence"):
            choice = (f"{VARS}.sequence.ArrayVar", [proper])
        elif instance.type.has_base("typing.Mapping") or "dataclass" in instance.type.metadata:
            choice = (f"{VARS}.object.ObjectVar", [proper])
    info = lookup(choice[0])
    return Instance(info, choice[1]) if info is not None else None


def _as_var(lookup: Callable[[str], TypeInfo | None]) -> Callable[[AttributeContext], Type]:
    def hook(ctx: AttributeContext) -> Type:
        found = None if ctx.is_lvalue else _var_for(ctx.default_attr_type, lookup)
        return found if found is not None else ctx.default_attr_type

    return hook


def _returning_callback(signature: CallableType, callback: TypeInfo) -> CallableType:
    """`signature` with the `EventCallback[*P]` it declares as its (innermost) return type: mypy leaves that
    annotation of `EventNamespace.__new__` unanalysed."""
    returned = get_proper_type(signature.ret_type)
    if isinstance(returned, CallableType):
        return signature.copy_modified(ret_type=_returning_callback(returned, callback))
    params = next((v for v in signature.variables if isinstance(v, TypeVarTupleType)), None)
    if params is None:
        return signature
    return signature.copy_modified(ret_type=Instance(callback, [UnpackType(params)]))


def _event(namespace: TypeInfo, callback: TypeInfo) -> Callable[[FunctionContext], Type]:
    """`rx.event(handler)` and `rx.event(...)`: the return type of the matching `EventNamespace.__new__`."""

    def hook(ctx: FunctionContext) -> Type:
        new = _method_type(namespace, "__new__")
        if not isinstance(new, Overloaded) or not isinstance(ctx.api, TypeChecker):
            return ctx.default_return_type
        new = Overloaded([_returning_callback(item, callback) for item in new.items])
        bound = bind_self(new, TypeType(Instance(namespace, [])), is_classmethod=True)
        args = [arg for group in ctx.args for arg in group]
        kinds = [kind for group in ctx.arg_kinds for kind in group]
        names = [name for group in ctx.arg_names for name in group]
        found, _ = ctx.api.expr_checker.check_call(bound, args, kinds, ctx.context, names)
        return found

    return hook


class PortalTypes(Plugin):
    def _info(self, fullname: str) -> TypeInfo | None:
        symbol = self.lookup_fully_qualified(fullname)
        return symbol.node if symbol is not None and isinstance(symbol.node, TypeInfo) else None

    def get_base_class_hook(self, fullname: str) -> Callable[[ClassDefContext], None] | None:
        return _mark_table if fullname == SQLMODEL else None

    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        if fullname != EVENT:
            return None
        namespace, callback = self._info(EVENT), self._info(CALLBACK)
        return _event(namespace, callback) if namespace is not None and callback is not None else None

    def get_class_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        class_name, _, name = fullname.rpartition(".")
        if not class_name or name.startswith("_"):
            return None
        info = self._info(class_name)
        if info is None:
            return None
        field = info.get(name)
        node = field.node if field else None
        if not isinstance(node, Var) or node.is_classvar or node.is_property:
            return None
        if _is_table(info) and node.info.has_base(SQLMODEL) and node.info.fullname != SQLMODEL:
            column = self._info(COLUMN)
            return _as_column(column) if column is not None else None
        if info.has_base(STATE) and not node.info.fullname.startswith("reflex"):
            declared = get_proper_type(node.type)
            if isinstance(declared, Instance) and declared.type.has_base(FIELD):
                return None  # already an rx.Field[...]: Reflex's own descriptor types it
            return _as_var(self._info)
        return None


def plugin(_version: str) -> type[Plugin]:
    return PortalTypes
