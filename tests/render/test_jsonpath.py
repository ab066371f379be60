"""-o jsonpath in kubectl's dialect: the examples of kubectl's JSONPath page
(kubernetes.io/docs/reference/kubectl/jsonpath), with what kubectl really prints (maps as JSON,
where the page shows Go's map[cpu:4]), and client-go's errors."""
from __future__ import annotations

import json

import pytest

from kubectl_preempt.render.jsonpath import JSONPathError, execute

# the page's input
DOC = {
    "kind": "List",
    "items": [
        {"kind": "None",
         "metadata": {"name": "127.0.0.1", "labels": {"kubernetes.io/hostname": "127.0.0.1"}},
         "status": {"capacity": {"cpu": "4"}, "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.1"}]}},
        {"kind": "None",
         "metadata": {"name": "127.0.0.2"},
         "status": {"capacity": {"cpu": "8"}, "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.2"},
                                                            {"type": "another", "address": "127.0.0.3"}]}},
    ],
    "users": [
        {"name": "myself", "user": {}},
        {"name": "e2e", "user": {"username": "admin", "password": "secret"}},
    ],
}


@pytest.mark.parametrize("template,expected", [
    ("kind is {.kind}", "kind is List"),
    ("{.kind}", "List"),
    ("{['kind']}", "List"),
    ("{$.kind}", "List"),
    ("{..name}", "127.0.0.1 127.0.0.2 myself e2e"),
    ("{.items[*].metadata.name}", "127.0.0.1 127.0.0.2"),
    ("{.users[0].name}", "myself"),
    ("{.items[*]['metadata.name', 'status.capacity']}", '127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}'),
    ('{.users[?(@.name=="e2e")].user.password}', "secret"),
    ("{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}",
     '[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] '),
    ("{range .items[*]}{.metadata.name}{'\\t'}{end}", "127.0.0.1\t127.0.0.2\t"),
    ('{range .items[*]}{.metadata.name}{"\\n"}{end}', "127.0.0.1\n127.0.0.2\n"),
    ("{.items[0].metadata.labels.kubernetes\\.io/hostname}", "127.0.0.1"),
    # negative slice indices step back from the end, without wrapping around
    ("{.items[-1:].metadata.name}", "127.0.0.2"),
    ("{.items[-1].metadata.name}", "127.0.0.2"),
    ("{.items[0:2:2].metadata.name}", "127.0.0.1"),
    # a missing key prints nothing (kubectl's --allow-missing-template-keys=true)
    ("{.items[*].metadata.nope}x", "x"),
    ('{.items[*].status.addresses[?(@.type=="another")].address}', "127.0.0.3"),
    ("{.users[?(@.user.password)].name}", "e2e"),
    ('{.users[?(@.name!="e2e")].name}', "myself"),
    ("{range .users[*]}{.name}:{range .user.*}<{@}>{end};{end}", "myself:;e2e:<admin><secret>;"),
    ("{.users[1].user}", '{"password":"secret","username":"admin"}'),
    ("{.items[0].status.addresses}", '[{"address":"127.0.0.1","type":"LegacyHostIP"}]'),
], ids=lambda v: v if isinstance(v, str) and v.startswith("{") or " " in str(v)[:12] else None)
def test_kubectl_page_examples(template: str, expected: str) -> None:
    assert execute(template, DOC) == expected


def test_at_is_the_whole_input() -> None:
    assert json.loads(execute("{@}", DOC)) == DOC


def test_values_print_as_go_prints_them() -> None:
    data = {"n": 3, "f": 1.5, "big": 1000000.0, "t": True, "none": None, "html": {"a": "<b>&"}}
    assert execute("{.n} {.f} {.big} {.t} {.none}", data) == "3 1.5 1e+06 true <nil>"
    assert execute("{.html}", data) == '{"a":"\\u003cb\\u003e\\u0026"}'


def test_numeric_filters() -> None:
    data = {"items": [{"p": 10, "n": "a"}, {"p": 1000, "n": "b"}, {"p": 500, "n": "c"}]}
    assert execute("{.items[?(@.p>100)].n}", data) == "b c"
    assert execute("{.items[?(@.p<=500)].n}", data) == "a c"
    assert execute("{.items[?(@.p==1000)].n}", data) == "b"


@pytest.mark.parametrize("template,message", [
    ("{.kind", "unclosed action"),
    ("{.items[5]}", "array index out of bounds: index 5, length 2"),
    ("{end}", "not in range, nothing to end"),
    ("{.items[x]}", "invalid array index x"),
    ('{.users[?(@.name=="e2e)]}', "unterminated filter"),
    ("{.kind.x[0]}", ""),
    ("{frobnicate}", "unrecognized identifier frobnicate"),
    ("{.items[0:1:0]}", "step must be > 0"),
])
def test_errors_are_client_go_s(template: str, message: str) -> None:
    if not message:
        assert execute(template, DOC) == ""  # a string has no field x: missing, nothing printed
        return
    with pytest.raises(JSONPathError, match=message.replace("[", r"\[")):
        execute(template, DOC)


def test_ranges_nested_past_a_hundred_levels_are_an_error_not_a_crash() -> None:
    # a thousand nested {range} raised RecursionError with a traceback; a hundred still run
    data = {"x": [{"x": [1]}]}
    assert execute("{range .x}" * 100 + "ok" + "{end}" * 100, data) == ""
    assert execute("{range .x[*]}{range .x[*]}{@}{end}{end}", data) == "1"
    with pytest.raises(JSONPathError, match="ranges nested more than 100 deep"):
        execute("{range .x}" * 3000 + "{end}" * 3000, data)
