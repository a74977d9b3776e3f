"""Device presets for `POST /set/device`: viewport (CSS pixels), device scale factor, mobile, touch
and user agent of common phones, tablets and desktops. Viewports are the devices' full screens in
portrait. `{chrome}` in a user agent becomes the running browser's own Chrome version."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from clawd import errors

_IOS = (
    "Mozilla/5.0 ({device}; CPU {os} {ver} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/{safari} Mobile/15E148 Safari/604.1"
)
_ANDROID = (
    "Mozilla/5.0 (Linux; Android {ver}; {model}) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/{{chrome}} {mobile}Safari/537.36"
)
_WINDOWS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/{chrome} Safari/537.36"
)
_MAC = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/{chrome} Safari/537.36"
)
_LINUX = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/{chrome} Safari/537.36"
)


@dataclass(frozen=True)
class Device:
    name: str
    width: int
    height: int
    scale: float
    mobile: bool
    touch: bool
    user_agent: str
    kind: str  # phone | tablet | desktop

    def agent(self, chrome_version: str) -> str:
        return self.user_agent.replace("{chrome}", chrome_version)

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "width": self.width,
            "height": self.height,
            "deviceScaleFactor": self.scale,
            "mobile": self.mobile,
            "touch": self.touch,
            "kind": self.kind,
        }


def _iphone(name: str, width: int, height: int, ios: str = "17_0", scale: float = 3) -> Device:
    agent = _IOS.format(device="iPhone", os="iPhone OS", ver=ios, safari=ios.split("_")[0] + ".0")
    return Device(name, width, height, scale, True, True, agent, "phone")


def _ipad(name: str, width: int, height: int, ios: str = "17_0") -> Device:
    agent = _IOS.format(device="iPad", os="OS", ver=ios, safari=ios.split("_")[0] + ".0")
    return Device(name, width, height, 2, True, True, agent, "tablet")


def _android(
    name: str,
    model: str,
    width: int,
    height: int,
    scale: float,
    version: str = "14",
    kind: str = "phone",
) -> Device:
    agent = _ANDROID.format(ver=version, model=model, mobile="Mobile " if kind == "phone" else "")
    return Device(name, width, height, scale, True, True, agent, kind)


def _desktop(name: str, width: int, height: int, scale: float = 1, agent: str = _WINDOWS) -> Device:
    return Device(name, width, height, scale, False, False, agent, "desktop")


DEVICES: tuple[Device, ...] = (
    _iphone("iPhone SE", 375, 667, "16_0", scale=2),
    _iphone("iPhone 12", 390, 844, "16_0"),
    _iphone("iPhone 12 Pro Max", 428, 926, "16_0"),
    _iphone("iPhone 13", 390, 844, "16_0"),
    _iphone("iPhone 13 Mini", 375, 812, "16_0"),
    _iphone("iPhone 13 Pro", 390, 844, "16_0"),
    _iphone("iPhone 14", 390, 844),
    _iphone("iPhone 14 Plus", 428, 926),
    _iphone("iPhone 14 Pro", 393, 852),
    _iphone("iPhone 14 Pro Max", 430, 932),
    _iphone("iPhone 15", 393, 852, "17_4"),
    _iphone("iPhone 15 Pro Max", 430, 932, "17_4"),
    _android("Pixel 5", "Pixel 5", 393, 851, 2.75, "13"),
    _android("Pixel 7", "Pixel 7", 412, 915, 2.625),
    _android("Pixel 8", "Pixel 8", 412, 915, 2.625),
    _android("Galaxy S8", "SM-G950F", 360, 740, 3, "9"),
    _android("Galaxy S9+", "SM-G965U", 320, 658, 4.5, "10"),
    _android("Galaxy S23", "SM-S911B", 360, 780, 3),
    _android("Galaxy Tab S4", "SM-T837A", 712, 1138, 2.25, "10", kind="tablet"),
    _android("Pixel Tablet", "Pixel Tablet", 1280, 800, 2, kind="tablet"),
    _ipad("iPad Mini", 768, 1024),
    _ipad("iPad (gen 7)", 810, 1080, "16_0"),
    _ipad("iPad Air", 820, 1180),
    _ipad("iPad Pro 11", 834, 1194),
    _ipad("iPad Pro 12.9", 1024, 1366),
    _desktop("Desktop Chrome", 1280, 720),
    _desktop("Desktop Chrome HiDPI", 1280, 720, 2),
    _desktop("Desktop 1080p", 1920, 1080),
    _desktop("Laptop", 1366, 768),
    _desktop("MacBook Air", 1440, 900, 2, _MAC),
    _desktop("MacBook Pro 14", 1512, 982, 2, _MAC),
    _desktop("Linux Desktop", 1280, 800, 1, _LINUX),
)

_BY_KEY = {" ".join(d.name.lower().split()): d for d in DEVICES}


def find(name: str) -> Device:
    """The preset named `name` (case and spacing do not matter); 400 naming the closest names."""
    key = " ".join(str(name).lower().split())
    device = _BY_KEY.get(key)
    if device is not None:
        return device
    close = difflib.get_close_matches(key, list(_BY_KEY), n=4, cutoff=0.4)
    names = [_BY_KEY[k].name for k in close]
    hint = (
        f"; closest: {', '.join(names)}"
        if names
        else f"; known: {', '.join(d.name for d in DEVICES)}"
    )
    raise errors.UnknownDevice(f"unknown device {name!r} in field 'name'{hint}", closest=names)
