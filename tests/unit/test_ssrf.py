"""The navigation policy, table-driven: every URL is judged through a fake resolver (no DNS)."""

from __future__ import annotations

import ipaddress

import pytest

from clawd import errors
from clawd.config.model import SsrfPolicy
from clawd.security.ssrf import NavigationPolicy, is_blocked_ip, parse_host

DNS = {
    "public.test": ["93.184.216.34"],
    "public.test.": ["93.184.216.34"],
    "www.public.test": ["93.184.216.34"],
    "v6.test": ["2606:2800:220:1:248:1893:25c8:1946"],
    "dual.test": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
    "xn--n3h.test": ["93.184.216.34"],
    "xn--zca.test": ["93.184.216.34"],
    "a_b.test": ["93.184.216.34"],
    "rebind.test": ["8.8.8.8", "10.0.0.1"],
    "private.test": ["192.168.1.10"],
    "cgnat.test": ["100.64.0.1"],
    "metadata.test": ["169.254.169.254"],
    "loop6.test": ["::1"],
    "linklocal6.test": ["fe80::1%eth0"],
    "ula.test": ["fd00::1"],
    "mapped.test": ["::ffff:127.0.0.1"],
    "nat64.test": ["64:ff9b::a9fe:a9fe"],
    "127.0.0.1.nip.test": ["127.0.0.1"],
    "garbage.test": ["not-an-address"],
    "empty.test": [],
    "dev.test": ["10.1.2.3"],
    "localhost": ["127.0.0.1"],
    "localhost.": ["127.0.0.1"],
    "example.com": ["93.184.216.34"],
    "www.example.com": ["93.184.216.34"],
    "www.example.com.": ["93.184.216.34"],
    "xn--bcher-kva.example": ["93.184.216.34"],
    "shop.xn--bcher-kva.example": ["93.184.216.34"],
    "a.b.example.com": ["93.184.216.34"],
    "notexample.com": ["93.184.216.34"],
}


def fake_resolver(host: str) -> list[str]:
    if host == "oserror.test":
        raise OSError("[Errno -2] resolver 10.9.9.9 said no")
    if host not in DNS:
        raise errors.HostUnresolved(f"{host}: NXDOMAIN from 10.9.9.9")
    return DNS[host]


def policy(**knobs) -> NavigationPolicy:
    return NavigationPolicy(SsrfPolicy(**knobs), resolver=fake_resolver)


ALLOWED, BLOCKED, UNRESOLVED, INVALID = "allowed", "blocked", "unresolved", "invalid"

CASES = [
    # -- schemes ----------------------------------------------------------------------------------
    ("http://public.test/", ALLOWED),
    ("https://public.test/", ALLOWED),
    ("HTTPS://PUBLIC.TEST/", ALLOWED),
    ("about:blank", ALLOWED),
    ("ABOUT:BLANK", ALLOWED),
    ("about:srcdoc", BLOCKED),
    ("about:blank#x", BLOCKED),
    ("file:///etc/passwd", BLOCKED),
    ("javascript:alert(1)", BLOCKED),
    ("data:text/html,<script>alert(1)</script>", BLOCKED),
    ("chrome://settings", BLOCKED),
    ("view-source:http://public.test/", BLOCKED),
    ("ftp://public.test/", BLOCKED),
    ("ws://public.test/", BLOCKED),
    ("blob:http://public.test/uuid", BLOCKED),
    ("filesystem:http://public.test/x", BLOCKED),
    ("localhost:8080", BLOCKED),  # scheme "localhost"
    # -- not URLs at all --------------------------------------------------------------------------
    ("public.test", INVALID),
    ("//public.test/", INVALID),
    ("", INVALID),
    ("   ", INVALID),
    ("http://public.test:99999/", INVALID),
    ("http://public.test:8o/", INVALID),
    # -- public hosts, ports, odd but legal spellings ----------------------------------------------
    ("http://public.test:8080/path?q=1#frag", ALLOWED),
    ("http://user:pass@public.test/", ALLOWED),
    ("http://public.test./", ALLOWED),
    ("http:public.test", ALLOWED),
    ("http:\\\\public.test\\x", ALLOWED),
    ("http://ｐｕｂｌｉｃ．ｔｅｓｔ/", ALLOWED),
    ("http://www.public.test/", ALLOWED),
    ("http://v6.test/", ALLOWED),
    ("http://dual.test/", ALLOWED),
    ("http://☃.test/", ALLOWED),
    ("http://ß.test/", ALLOWED),
    ("http://a_b.test/", ALLOWED),
    ("http://93.184.216.34/", ALLOWED),
    ("http://8.8.8.8:53/", ALLOWED),
    ("http://[2606:4700:4700::1111]/", ALLOWED),
    ("http://[::ffff:8.8.8.8]/", ALLOWED),
    ("http://[64:ff9b::808:808]/", ALLOWED),
    ("http://[2002:808:808::1]/", ALLOWED),
    ("http://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/", ALLOWED),  # Teredo, client 8.8.8.8
    # -- loopback, private, and friends as IPv4 literals ------------------------------------------
    ("http://127.0.0.1/", BLOCKED),
    ("http://127.0.0.1:18791/", BLOCKED),
    ("http://127.255.255.254/", BLOCKED),
    ("http://10.0.0.1/", BLOCKED),
    ("http://172.16.0.1/", BLOCKED),
    ("http://172.31.255.255/", BLOCKED),
    ("http://192.168.1.1/", BLOCKED),
    ("http://169.254.169.254/latest/meta-data/", BLOCKED),
    ("http://100.64.0.1/", BLOCKED),
    ("http://100.127.255.255/", BLOCKED),
    ("http://0.0.0.0/", BLOCKED),
    ("http://0.1.2.3/", BLOCKED),
    ("http://224.0.0.1/", BLOCKED),
    ("http://239.255.255.250/", BLOCKED),
    ("http://240.0.0.1/", BLOCKED),
    ("http://255.255.255.255/", BLOCKED),
    ("http://198.18.0.1/", BLOCKED),
    ("http://198.19.255.255/", BLOCKED),
    ("http://192.0.2.1/", BLOCKED),
    ("http://198.51.100.7/", BLOCKED),
    ("http://203.0.113.9/", BLOCKED),
    ("http://192.0.0.8/", BLOCKED),
    # -- non-canonical and malformed IPv4 literals ------------------------------------------------
    ("http://0177.0.0.1/", BLOCKED),
    ("http://127.1/", BLOCKED),
    ("http://2130706433/", BLOCKED),
    ("http://0x7f000001/", BLOCKED),
    ("http://0x7f.1/", BLOCKED),
    ("http://0X7F.0.0.1/", BLOCKED),
    ("http://0/", BLOCKED),
    ("http://0x/", BLOCKED),
    ("http://010.0.0.1/", BLOCKED),
    ("http://134744072/", BLOCKED),  # 8.8.8.8, but nobody honest writes it so
    ("http://0x08080808/", BLOCKED),
    ("http://8.8.8.8./", BLOCKED),  # canonical address, non-canonical spelling
    ("http://00000000000000000000000000177.1/", BLOCKED),
    ("http://256.1.1.1/", BLOCKED),
    ("http://1.2.3.256/", BLOCKED),
    ("http://1.2.3.4.5/", BLOCKED),
    ("http://4294967296/", BLOCKED),
    ("http://09.1.1.1/", BLOCKED),
    ("http://1.2.3.08/", BLOCKED),
    ("http://foo.0x/", BLOCKED),
    ("http://a.b.c.d.1/", BLOCKED),
    ("http://1..2.3/", BLOCKED),
    # -- userinfo, backslash, and delimiter tricks ------------------------------------------------
    ("http://evil.test@127.0.0.1/", BLOCKED),
    ("http://public.test@127.0.0.1/", BLOCKED),
    ("http://a@b@127.0.0.1/", BLOCKED),
    ("http://127.0.0.1\\@public.test/", BLOCKED),
    ("http://127.0.0.1:80@public.test/", ALLOWED),  # host is public.test
    ("http://public.test#@127.0.0.1/", ALLOWED),  # host is public.test
    ("http://public.test?@127.0.0.1/", ALLOWED),
    ("http:/127.0.0.1/", BLOCKED),
    ("http:///127.0.0.1/", BLOCKED),
    ("http:\\\\/127.0.0.1/", BLOCKED),
    (" \x00http://127.0.0.1/ ", BLOCKED),
    ("http://127.0.0.\t1/", BLOCKED),
    ("http://127.0.0.\n1/", BLOCKED),
    ("http://user@/", BLOCKED),
    ("http://:80/", BLOCKED),
    ("http:///", BLOCKED),
    # -- encodings: percent, IDNA/UTS46, full-width, enclosed -------------------------------------
    ("http://%31%32%37.0.0.1/", BLOCKED),
    ("http://%EF%BC%91%EF%BC%92%EF%BC%97.0.0.1/", BLOCKED),
    ("http://１２７．０．０．１/", BLOCKED),
    ("http://①②⑦.⓪.⓪.①/", BLOCKED),
    ("http://127。0。0。1/", BLOCKED),
    ("http://127｡0｡0｡1/", BLOCKED),
    ("http://%2531.0.0.1/", BLOCKED),
    ("http://%ff/", BLOCKED),
    ("http://127.0.0.1%00.public.test/", BLOCKED),
    ("http://exa mple.test/", BLOCKED),
    ("http://a*b.test/", BLOCKED),
    ("http://xn--localhost-/", BLOCKED),
    ("http://ex\u2024ample.test/", BLOCKED),
    # -- local names ------------------------------------------------------------------------------
    ("http://localhost/", BLOCKED),
    ("http://LOCALHOST:3000/", BLOCKED),
    ("http://localhost./", BLOCKED),
    ("http://localhost../", BLOCKED),
    ("http://ＬＯＣＡＬＨＯＳＴ/", BLOCKED),
    ("http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/", BLOCKED),
    ("http://local\u00adhost/", BLOCKED),
    ("http://local\u200bhost/", BLOCKED),
    ("http://%6c%6f%63%61%6c%68%6f%73%74/", BLOCKED),
    ("http://app.localhost/", BLOCKED),
    ("http://printer.local/", BLOCKED),
    ("http://db.corp.internal/", BLOCKED),
    ("http://metadata.google.internal/computeMetadata/v1/", BLOCKED),
    ("http://METADATA.GOOGLE.INTERNAL./", BLOCKED),
    # -- names that resolve somewhere they should not ---------------------------------------------
    ("http://rebind.test/", BLOCKED),
    ("http://private.test/", BLOCKED),
    ("http://cgnat.test/", BLOCKED),
    ("http://metadata.test/", BLOCKED),
    ("http://loop6.test/", BLOCKED),
    ("http://linklocal6.test/", BLOCKED),
    ("http://ula.test/", BLOCKED),
    ("http://mapped.test/", BLOCKED),
    ("http://nat64.test/", BLOCKED),
    ("http://127.0.0.1.nip.test/", BLOCKED),
    ("http://garbage.test/", BLOCKED),
    # -- names that do not resolve: fail closed, but not a policy verdict -------------------------
    ("http://nxdomain.test/", UNRESOLVED),
    ("http://oserror.test/", UNRESOLVED),
    ("http://empty.test/", UNRESOLVED),
    ("https://example.org/", UNRESOLVED),
    # -- IPv6 literals ----------------------------------------------------------------------------
    ("http://[::1]/", BLOCKED),
    ("http://[::1]:8080/", BLOCKED),
    ("http://[0:0:0:0:0:0:0:1]/", BLOCKED),
    ("http://[::]/", BLOCKED),
    ("http://[fc00::1]/", BLOCKED),
    ("http://[fd12:3456::1]/", BLOCKED),
    ("http://[fe80::1]/", BLOCKED),
    ("http://[febf::1]/", BLOCKED),
    ("http://[fec0::1]/", BLOCKED),
    ("http://[ff02::1]/", BLOCKED),
    ("http://[2001:db8::1]/", BLOCKED),
    ("http://[100::1]/", BLOCKED),
    ("http://[fe80::1%25eth0]/", BLOCKED),
    ("http://[fe80::1%eth0]/", BLOCKED),
    ("http://[::1%251]/", BLOCKED),
    ("http://[::ffff:127.0.0.1]/", BLOCKED),
    ("http://[::ffff:7f00:1]/", BLOCKED),
    ("http://[::ffff:10.0.0.1]/", BLOCKED),
    ("http://[::ffff:169.254.169.254]/", BLOCKED),
    ("http://[::127.0.0.1]/", BLOCKED),
    ("http://[::7f00:1]/", BLOCKED),
    ("http://[::ffff:0177.0.0.1]/", BLOCKED),
    ("http://[64:ff9b::7f00:1]/", BLOCKED),
    ("http://[64:ff9b::a9fe:a9fe]/", BLOCKED),
    ("http://[64:ff9b:1::808:808]/", BLOCKED),
    ("http://[2002:7f00:1::]/", BLOCKED),
    ("http://[2002:a00:1::1]/", BLOCKED),
    ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", BLOCKED),  # Teredo, client 127.0.0.1
    ("http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", BLOCKED),  # Teredo, client 192.0.2.45
    ("http://[1:2:3:4:5:6:7:8:9]/", BLOCKED),
    ("http://[::1/", BLOCKED),
    ("http://[::1]x/", BLOCKED),
    ("http://[g::1]/", BLOCKED),
]


def verdict(nav: NavigationPolicy, url: str) -> str:
    try:
        nav.check(url)
    except errors.NavigationBlocked:
        return BLOCKED
    except errors.HostUnresolved:
        return UNRESOLVED
    except errors.InvalidRequest:
        return INVALID
    return ALLOWED


def test_the_table_is_big_enough():
    assert len(CASES) >= 100
    assert len({url for url, _ in CASES}) == len(CASES)


@pytest.mark.parametrize("url,expected", CASES, ids=[repr(u)[1:-1][:60] for u, _ in CASES])
def test_default_policy_verdict(url, expected):
    assert verdict(policy(), url) == expected


# -- what check() returns -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url,normalized",
    [
        ("http://public.test", "http://public.test/"),
        ("HTTP://PUBLIC.test:80/a\\b?q=a b#c d", "http://public.test/a/b?q=a%20b#c%20d"),
        ("http:\\\\public.test\\x", "http://public.test/x"),
        ("https://x@y@public.test/", "https://x%40y@public.test/"),
        ("http://user:pa:ss@public.test/", "http://user:pa%3Ass@public.test/"),
        ("http://ｐｕｂｌｉｃ．ｔｅｓｔ/é", "http://public.test/%C3%A9"),
        ("http://☃.test/", "http://xn--n3h.test/"),
        ("https://public.test:443/", "https://public.test/"),
        ("http://public.test:0080/", "http://public.test/"),
        ("https://public.test:8443/", "https://public.test:8443/"),
        ("http://[2606:4700:4700:0:0:0:0:1111]/", "http://[2606:4700:4700::1111]/"),
        ("http://public.test#@127.0.0.1/", "http://public.test/#@127.0.0.1/"),
        ("about:blank", "about:blank"),
        ("  about:blank\n", "about:blank"),
    ],
)
def test_check_returns_the_url_as_chromium_reads_it(url, normalized):
    assert policy().check(url) == normalized


@pytest.mark.parametrize(
    "url,scheme,host",
    [
        ("http://evil.test@127.0.0.1/", "http", "127.0.0.1"),
        ("http://127.0.0.1\\@evil.test/", "http", "127.0.0.1"),
        ("HTTP://0x7f.1/", "http", "127.0.0.1"),
        ("https://①②⑦.⓪.⓪.①/", "https", "127.0.0.1"),
        ("http://[::FFFF:127.0.0.1]/", "http", "[::ffff:7f00:1]"),
        ("ws://Public.Test/socket", "ws", "public.test"),
        ("javascript:alert(1)", "javascript", ""),
        ("about:blank", "about", ""),
    ],
)
def test_parse_host_reads_like_chromium(url, scheme, host):
    assert parse_host(url) == (scheme, host)


def test_parse_host_rejects_a_relative_url():
    with pytest.raises(errors.InvalidRequest):
        parse_host("/just/a/path")


# -- messages -------------------------------------------------------------------------------------
def test_blocked_message_does_not_echo_resolved_addresses():
    with pytest.raises(errors.NavigationBlocked) as caught:
        policy().check("http://rebind.test/")
    message = caught.value.message
    assert "rebind.test" in message
    assert "10.0.0.1" not in message and "8.8.8.8" not in message
    assert caught.value.http_status == 400 and caught.value.code == "NAVIGATION_BLOCKED"


def test_unresolved_message_does_not_echo_resolver_details():
    for host in ("nxdomain.test", "oserror.test"):
        with pytest.raises(errors.HostUnresolved) as caught:
            policy().check(f"http://{host}/")
        assert "10.9.9.9" not in caught.value.message
        assert "Errno" not in caught.value.message and "NXDOMAIN" not in caught.value.message
        assert caught.value.http_status == 502


def test_unresolved_is_not_a_navigation_blocked_verdict():
    assert not issubclass(errors.HostUnresolved, errors.NavigationBlocked)


# -- knobs ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://10.0.0.1/",
        "http://localhost/",
        "http://printer.local/",
        "http://rebind.test/",
        "http://[::1]/",
        "http://[fe80::1]/",
        "http://metadata.google.internal/",
    ],
)
def test_dangerously_allow_private_network_allows_private_targets(url):
    nav = NavigationPolicy(
        SsrfPolicy(dangerously_allow_private_network=True), resolver=lambda host: ["10.0.0.7"]
    )
    assert verdict(nav, url) == ALLOWED


def test_dangerously_allow_private_network_still_blocks_obfuscated_literals_and_schemes():
    nav = policy(dangerously_allow_private_network=True)
    for url in (
        "http://127.1/",
        "http://0x7f000001/",
        "file:///etc/passwd",
        "http://[fe80::1%25eth0]/",
    ):
        assert verdict(nav, url) == BLOCKED, url
    assert verdict(nav, "http://nxdomain.test/") == UNRESOLVED


@pytest.mark.parametrize(
    "entry,url",
    [
        ("127.0.0.1", "http://127.0.0.1:8000/"),
        ("localhost", "http://localhost:3000/"),
        ("LOCALHOST.", "http://localhost/"),
        ("localhost", "http://LocalHost./"),
        ("dev.test", "http://dev.test/"),
        ("Dev.Test", "http://DEV.test/"),
        ("::1", "http://[::1]/"),
        ("[::1]", "http://[0:0::1]/"),
    ],
)
def test_allowed_hostnames_exempt_exact_hosts(entry, url):
    assert verdict(policy(allowed_hostnames=(entry,)), url) == ALLOWED


@pytest.mark.parametrize(
    "entry,url",
    [
        ("127.0.0.1", "http://127.1/"),  # obfuscated spellings are never exempt
        ("127.0.0.1", "http://127.0.0.2/"),
        ("127.0.0.1", "http://localhost/"),
        ("localhost", "http://127.0.0.1/"),
        ("localhost", "http://app.localhost/"),
        ("dev.test", "http://private.test/"),
    ],
)
def test_allowed_hostnames_exempt_nothing_else(entry, url):
    assert verdict(policy(allowed_hostnames=(entry,)), url) == BLOCKED


@pytest.mark.parametrize(
    "url,expected",
    [
        ("http://www.example.com/", ALLOWED),
        ("http://a.b.example.com/", ALLOWED),
        ("http://WWW.EXAMPLE.COM./", ALLOWED),
        ("http://example.com/", BLOCKED),  # the apex needs its own entry
        ("http://notexample.com/", BLOCKED),
        ("http://public.test/", BLOCKED),
        ("http://93.184.216.34/", BLOCKED),
        ("http://evil.test@www.example.com/", ALLOWED),
        ("http://www.example.com.evil.test/", BLOCKED),
    ],
)
def test_hostname_allowlist_with_wildcard(url, expected):
    assert verdict(policy(hostname_allowlist=("*.example.com",)), url) == expected


def test_hostname_allowlist_exact_entries_and_apex():
    nav = policy(hostname_allowlist=("example.com", "*.example.com", "93.184.216.34"))
    for url in ("http://example.com/", "http://www.example.com/", "http://93.184.216.34/"):
        assert verdict(nav, url) == ALLOWED, url
    assert verdict(nav, "http://public.test/") == BLOCKED


def test_hostname_allowlist_entries_may_be_unicode():
    nav = policy(hostname_allowlist=("*.Bücher.example", "bücher.example"))
    assert verdict(nav, "http://shop.bücher.example/") == ALLOWED
    assert verdict(nav, "http://xn--bcher-kva.example/") == ALLOWED
    assert verdict(nav, "http://public.test/") == BLOCKED


def test_trailing_dot_names_are_resolved_as_written():
    asked = []
    nav = NavigationPolicy(SsrfPolicy(), resolver=lambda host: asked.append(host) or ["8.8.8.8"])
    nav.check("http://intranet./")
    assert asked == ["intranet."]


def test_hostname_allowlist_is_checked_before_resolving():
    asked = []
    nav = NavigationPolicy(
        SsrfPolicy(hostname_allowlist=("*.example.com",)),
        resolver=lambda host: asked.append(host) or ["93.184.216.34"],
    )
    assert verdict(nav, "http://nxdomain.test/") == BLOCKED
    assert asked == []


def test_allowlisted_host_still_gets_the_private_check():
    nav = NavigationPolicy(
        SsrfPolicy(hostname_allowlist=("*.example.com",)), resolver=lambda host: ["10.0.0.5"]
    )
    assert verdict(nav, "http://intranet.example.com/") == BLOCKED


def test_allowed_hostnames_do_not_bypass_the_hostname_allowlist():
    nav = policy(allowed_hostnames=("localhost",), hostname_allowlist=("*.example.com",))
    assert verdict(nav, "http://localhost/") == BLOCKED
    nav = policy(
        allowed_hostnames=("localhost",), hostname_allowlist=("*.example.com", "localhost")
    )
    assert verdict(nav, "http://localhost/") == ALLOWED


def test_local_names_are_blocked_without_asking_the_resolver():
    asked = []
    nav = NavigationPolicy(SsrfPolicy(), resolver=lambda host: asked.append(host) or ["8.8.8.8"])
    assert verdict(nav, "http://localhost/") == BLOCKED
    assert verdict(nav, "http://x.internal/") == BLOCKED
    assert asked == []


# -- resolve_checked ------------------------------------------------------------------------------
def test_resolve_checked_returns_every_address():
    assert policy().resolve_checked("dual.test") == [
        "93.184.216.34",
        "2606:2800:220:1:248:1893:25c8:1946",
    ]
    assert policy().resolve_checked("93.184.216.34") == ["93.184.216.34"]
    assert policy().resolve_checked("[2606:4700:4700::1111]") == ["2606:4700:4700::1111"]


def test_resolve_checked_applies_the_same_verdicts():
    with pytest.raises(errors.NavigationBlocked):
        policy().resolve_checked("rebind.test")
    with pytest.raises(errors.NavigationBlocked):
        policy().resolve_checked("localhost")
    with pytest.raises(errors.HostUnresolved):
        policy().resolve_checked("nxdomain.test")
    assert policy(allowed_hostnames=("dev.test",)).resolve_checked("dev.test") == ["10.1.2.3"]


def test_default_resolver_is_used_when_none_is_given():
    # a literal needs no lookup, so this never touches the network
    assert NavigationPolicy(SsrfPolicy()).check("http://93.184.216.34/") == "http://93.184.216.34/"


# -- is_blocked_ip --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "address,blocked",
    [
        ("8.8.8.8", False),
        ("1.1.1.1", False),
        ("93.184.216.34", False),
        ("127.0.0.1", True),
        ("10.255.255.255", True),
        ("172.15.255.255", False),
        ("172.16.0.0", True),
        ("172.32.0.0", False),
        ("192.168.0.1", True),
        ("100.63.255.255", False),
        ("100.64.0.0", True),
        ("100.128.0.0", False),
        ("169.254.0.1", True),
        ("198.17.255.255", False),
        ("198.18.0.0", True),
        ("198.20.0.0", False),
        ("224.0.0.0", True),
        ("255.255.255.255", True),
        ("0.0.0.0", True),
        ("2606:4700::1", False),
        ("::1", True),
        ("::", True),
        ("fc00::", True),
        ("fdff::1", True),
        ("fe80::", True),
        ("fec0::1", True),
        ("ff0e::1", True),
        ("2001:db8::", True),
        ("::ffff:8.8.8.8", False),
        ("::ffff:192.168.0.1", True),
        ("::8.8.8.8", False),
        ("::10.0.0.1", True),
        ("64:ff9b::8.8.8.8", False),
        ("64:ff9b::127.0.0.1", True),
        ("64:ff9b:1::8.8.8.8", True),
        ("2002:0808:0808::", False),
        ("2002:c0a8:0101::", True),
        ("2001:0:4136:e378:8000:63bf:f7f7:f7f7", False),
        ("2001:0:4136:e378:8000:63bf:f5ff:fffe", True),
    ],
)
def test_is_blocked_ip(address, blocked):
    assert is_blocked_ip(ipaddress.ip_address(address)) is blocked
