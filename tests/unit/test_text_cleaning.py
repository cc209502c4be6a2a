from portal.domain.text import MAX_DEPTH, clean_payload, clean_text


def test_lone_surrogates_and_control_characters_are_removed_tabs_and_line_breaks_stay():
    assert clean_text("a\ud800b\udfffc") == "abc"
    assert clean_text("x\x00y\x1b[31mz\x7f\x85") == "xy[31mz"
    assert clean_text("line one\nline two\tend\r\n") == "line one\nline two\tend\r\n"
    assert clean_text("Ünïcödé 😀 日本") == "Ünïcödé 😀 日本"
    clean_text("\ud800").encode("utf-8")  # encodable afterwards


def test_every_string_of_a_payload_is_cleaned_keys_too_and_deep_nesting_stops():
    payload = {"key\x00": ["\ud800ok", {"inner": "a\x01b"}], "n": 5, "none": None}
    assert clean_payload(payload) == {"key": ["ok", {"inner": "ab"}], "n": 5, "none": None}
    deep: object = "leaf"
    for _ in range(MAX_DEPTH + 10):
        deep = [deep]
    cleaned = clean_payload(deep)
    depth = 0
    while isinstance(cleaned, list):
        cleaned, depth = cleaned[0], depth + 1
    assert cleaned is None and depth == MAX_DEPTH
