"""Icons that follow the state load only the icons they show, not lucide's map of every icon
(portal/components/icons.py; issue 18, item 5)."""

from __future__ import annotations

import pytest
import reflex as rx

from portal.components.icons import icon_switch


def _icon_imports(component: rx.Component) -> set[str]:
    return {
        imp.tag for lib, imps in component._get_all_imports().items() if lib.startswith("lucide-react") for imp in imps
    }


def test_a_switched_icon_imports_its_two_icons_and_no_dynamic_icon():
    flag = rx.Var(_js_expr="flag", _var_type=bool)
    switched = icon_switch(flag, "chevron-up", "chevron-down", size=16)
    assert _icon_imports(switched) == {"ChevronUp", "ChevronDown"}
    assert "DynamicIcon" not in str(switched)


def _sign_in():
    from portal.pages.sign_in import sign_in_page

    return sign_in_page()


def _highlight_toolbar():
    from portal.components.taking.highlight import toolbar

    return toolbar()


def _preference_detail():
    from portal.components.taking.preference import detail_dialog

    return detail_dialog()


@pytest.mark.parametrize("build", [_sign_in, _highlight_toolbar, _preference_detail])
def test_pages_with_a_changing_icon_do_not_load_the_dynamic_icon_map(build):
    imports = _icon_imports(build())
    assert imports and "DynamicIcon" not in imports
