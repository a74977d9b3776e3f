"""Typed reads of JSON bodies and query strings: strings such as "true" and "25" are accepted,
anything else is a 400 naming the field."""

from __future__ import annotations

import functools
import json

import pytest

from clawd import errors
from clawd.fields import (
    alias,
    as_bool,
    as_int,
    as_list,
    as_number,
    as_object,
    as_str,
    opt,
    read_fields,
    req,
)


# -- booleans -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value, expected",
    [
        (True, True),
        (False, False),
        ("true", True),
        ("TRUE", True),
        (" yes ", True),
        ("on", True),
        ("1", True),
        ("false", False),
        ("False", False),
        ("no", False),
        ("off", False),
        ("0", False),
        ("", False),
        (1, True),
        (0, False),
    ],
)
def test_as_bool_accepts_booleans_and_their_usual_spellings(value, expected):
    assert as_bool(value, "fullPage") is expected


@pytest.mark.parametrize("value", ["maybe", "tru", 2, -1, 0.5, None, [], {}])
def test_as_bool_refuses_anything_else_naming_the_field(value):
    with pytest.raises(errors.InvalidRequest) as raised:
        as_bool(value, "fullPage")
    assert "fullPage" in str(raised.value) and raised.value.http_status == 400


# -- numbers --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value, expected",
    [(25, 25), ("25", 25), (" 25 ", 25), ("-3", -3), (25.0, 25), ("25.0", 25), ("1e3", 1000)],
)
def test_as_int_accepts_whole_numbers_and_numeric_strings(value, expected):
    got = as_int(value, "timeoutMs")
    assert got == expected and type(got) is int


@pytest.mark.parametrize("value", ["2.5", 2.5, "abc", "", None, True, False, [], "0x10"])
def test_as_int_refuses_fractions_booleans_and_non_numbers(value):
    with pytest.raises(errors.InvalidRequest) as raised:
        as_int(value, "timeoutMs")
    assert "timeoutMs" in str(raised.value)


@pytest.mark.parametrize(
    "value, expected", [(1.5, 1.5), ("1.5", 1.5), ("7", 7), (" 7 ", 7), ("2E2", 200.0), (0, 0)]
)
def test_as_number_accepts_numbers_and_numeric_strings(value, expected):
    assert as_number(value, "x") == expected


@pytest.mark.parametrize("value", ["one", True, None, "1.5.2", {}])
def test_as_number_refuses_non_numbers(value):
    with pytest.raises(errors.InvalidRequest):
        as_number(value, "x")


def test_bounds_are_enforced_and_named():
    assert as_int("5", "n", minimum=1, maximum=10) == 5
    assert (
        as_int(1, "n", minimum=1, maximum=10) == 1 and as_int(10, "n", minimum=1, maximum=10) == 10
    )
    with pytest.raises(errors.InvalidRequest, match="n must be at least 1, not 0"):
        as_int("0", "n", minimum=1)
    with pytest.raises(errors.InvalidRequest, match="must be at most 10"):
        as_int(11, "n", maximum=10)
    with pytest.raises(errors.InvalidRequest, match="at most 1.5"):
        as_number("1.6", "scale", maximum=1.5)


@pytest.mark.parametrize("value", ["1e999", json.loads("Infinity"), json.loads("NaN"), "-1e999"])
def test_non_finite_numbers_are_a_400(value):
    with pytest.raises(errors.InvalidRequest):
        as_int(value, "timeoutMs")
    with pytest.raises(errors.InvalidRequest):
        as_number(value, "timeoutMs", minimum=0)


def test_a_custom_error_class_is_used():
    with pytest.raises(errors.ActInvalidRequest):
        as_int("x", "n", error=errors.ActInvalidRequest)
    with pytest.raises(errors.ActInvalidRequest):
        as_bool("x", "b", error=errors.ActInvalidRequest)


# -- strings, lists, objects ----------------------------------------------------------------------
def test_as_str_list_object():
    assert as_str("a", "s") == "a"
    assert as_str("", "s", allow_empty=True) == ""
    for bad in ("", None, 5):
        with pytest.raises(errors.InvalidRequest, match="s must be a non-empty string"):
            as_str(bad, "s")
    assert as_list([1], "l") == [1]
    assert as_object({"a": 1}, "o") == {"a": 1}
    with pytest.raises(errors.InvalidRequest, match="l must be a list"):
        as_list("x", "l")
    with pytest.raises(errors.InvalidRequest, match="o must be an object"):
        as_object([], "o")


# -- read_fields ----------------------------------------------------------------------------------
SPEC = {
    "url": req(as_str),
    "timeoutMs": opt(functools.partial(as_int, minimum=0)),
    "fullPage": opt(as_bool),
}


def test_read_fields_reads_and_coerces_the_present_fields():
    assert read_fields({"url": "https://a.test", "timeoutMs": "25", "fullPage": "true"}, SPEC) == {
        "url": "https://a.test",
        "timeoutMs": 25,
        "fullPage": True,
    }
    assert read_fields({"url": "https://a.test"}, SPEC) == {"url": "https://a.test"}


def test_an_unknown_field_is_refused_naming_it_and_the_allowed_ones():
    with pytest.raises(errors.InvalidRequest) as raised:
        read_fields({"url": "u", "fullpage": True}, SPEC)
    message = str(raised.value)
    assert "'fullpage'" in message and "fullPage, timeoutMs, url" in message


def test_profile_is_allowed_everywhere_and_not_returned():
    assert read_fields({"url": "u", "profile": "work"}, SPEC) == {"url": "u"}


def test_a_missing_or_null_required_field_is_refused():
    for body in ({}, {"url": None}):
        with pytest.raises(errors.InvalidRequest, match="body field 'url' is required"):
            read_fields(body, SPEC)


def test_a_null_optional_field_counts_as_absent():
    assert read_fields({"url": "u", "timeoutMs": None}, SPEC) == {"url": "u"}


def test_a_bad_value_is_refused_by_its_reader_naming_the_field():
    with pytest.raises(errors.InvalidRequest, match="timeoutMs must be at least 0"):
        read_fields({"url": "u", "timeoutMs": "-1"}, SPEC)


def test_where_names_the_query_and_no_fields_says_none():
    with pytest.raises(errors.InvalidRequest, match="unknown query field 'x'; allowed: none"):
        read_fields({"x": "1"}, {}, where="query")


# -- aliases (OpenClaw's names, DESIGN.md §17) -----------------------------------------------------
ALIASED = {
    "timezone": opt(as_str),
    "timezoneId": alias("timezone"),
    "timeoutMs": opt(lambda v, f: as_int(v, f, minimum=0)),
    "delay": alias("timeoutMs"),
}


def test_an_alias_is_read_into_the_clawd_name():
    assert read_fields({"timezoneId": "Asia/Tokyo"}, ALIASED) == {"timezone": "Asia/Tokyo"}
    assert read_fields({"delay": "25"}, ALIASED) == {"timeoutMs": 25}


def test_an_alias_with_a_wrong_value_is_the_same_400_naming_the_alias():
    with pytest.raises(errors.InvalidRequest, match="timezoneId must be a non-empty string"):
        read_fields({"timezoneId": 5}, ALIASED)
    with pytest.raises(errors.InvalidRequest, match="delay must be at least 0"):
        read_fields({"delay": -1}, ALIASED)


def test_an_alias_and_its_clawd_name_must_agree():
    assert read_fields({"timezone": "UTC", "timezoneId": "UTC"}, ALIASED) == {"timezone": "UTC"}
    assert read_fields({"timeoutMs": 5, "delay": "5"}, ALIASED) == {
        "timeoutMs": 5
    }  # equal once read
    with pytest.raises(
        errors.InvalidRequest, match="'timezone' and 'timezoneId' name the same thing"
    ):
        read_fields({"timezone": "UTC", "timezoneId": "Asia/Tokyo"}, ALIASED)
