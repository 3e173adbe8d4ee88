"""`roofline_svg`: the roofline of a device, one labelled point per function instance, as SVG.

Log-log: arithmetic intensity (FLOP per byte, the inclusive figures) across, attained FLOP/s
(`flops / time_s`) up. The memory slope is the device document's bandwidth
(`memory_bandwidth_bytes_per_s` times the intensity); each distinct peak of its
`peak_flops_per_s` is a compute roof, from the ridge where it meets the slope (peaks of the same
value share one roof and one label). A function with no FLOPs or no bytes has no place on log
axes: it is drawn hollow on the lower or left edge. Points at the same place (cloned layers)
share one label, the first path and how many more (`layer0.mlp (+3 alike)`). The SVG is written directly (no plotting library); every point is a
`<circle class="point">` holding a `<title>` with its path, every label a `<text
class="label">`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from xml.sax.saxutils import escape as _escape

from tilefoundry.builtin.target.devices import DeviceSpec
from tilefoundry.transforms.cost_report import Row

__all__ = ["roofline_svg"]

# what XML 1.0 cannot hold, escaped or not: control characters, surrogates, U+FFFE and U+FFFF
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def escape(text: str, entities: dict[str, str] | None = None) -> str:
    """`text` as XML character data (or an attribute's value, with `entities`): `&`, `<`, `>`
    escaped, and a character XML cannot hold written as `\\xNN` (a name's control character)."""
    shown = _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return _escape(shown, entities or {})


_WIDTH, _HEIGHT = 860, 560
_LEFT, _RIGHT, _TOP, _BOTTOM = 90, 250, 50, 70
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2")


def _decades(low: float, high: float) -> tuple[int, int]:
    lo, hi = math.floor(math.log10(low)), math.ceil(math.log10(high))
    return (lo, hi) if hi > lo else (lo, lo + 1)


def _si(value: float, unit: str) -> str:
    for prefix, scale in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


class _Axes:
    def __init__(self, x: tuple[int, int], y: tuple[int, int]) -> None:
        self.x, self.y = x, y
        self.plot_w = _WIDTH - _LEFT - _RIGHT
        self.plot_h = _HEIGHT - _TOP - _BOTTOM

    def px(self, value: float) -> float:
        lo, hi = self.x
        return _LEFT + (math.log10(value) - lo) / (hi - lo) * self.plot_w

    def py(self, value: float) -> float:
        lo, hi = self.y
        return _TOP + self.plot_h - (math.log10(value) - lo) / (hi - lo) * self.plot_h


def _position(row: Row, x_min: float, y_min: float) -> tuple[float, float, bool]:
    """Intensity and attained FLOP/s; False when the point has no place on log axes."""
    cost = row.cost
    if cost.flops == 0 or cost.bytes == 0 or cost.time_s <= 0:
        intensity = cost.intensity if 0 < cost.intensity < math.inf else x_min
        attained = cost.flops / cost.time_s if cost.flops and cost.time_s > 0 else y_min
        return intensity, attained, False
    return cost.intensity, cost.flops / cost.time_s, True


def roofline_svg(rows: Sequence[Row], device: DeviceSpec, title: str | None = None) -> str:
    """The roofline of `device` with a point per row (see the module docstring)."""
    bandwidth = device.memory_bandwidth_bytes_per_s
    roofs: dict[float, list[str]] = {}
    for name, peak in sorted(device.peak_flops_per_s.items(), key=lambda kv: kv[1]):
        roofs.setdefault(peak, []).append(name)
    top, bottom = max(roofs), min(roofs)
    placed = [
        (r.cost.intensity, r.cost.flops / r.cost.time_s)
        for r in rows
        if r.cost.flops and r.cost.bytes and r.cost.time_s > 0
    ]
    xs = [bottom / bandwidth / 100, top / bandwidth * 100, *(p[0] for p in placed)]
    ys = [bottom / 1000, top * 3, *(p[1] for p in placed)]
    axes = _Axes(_decades(min(xs), max(xs)), _decades(min(ys), max(ys)))
    x_min, y_min = 10.0 ** axes.x[0], 10.0 ** axes.y[0]
    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
        f'viewBox="0 0 {_WIDTH} {_HEIGHT}" font-family="DejaVu Sans, Helvetica, Arial, '
        'sans-serif" font-size="12">',
        f'<rect width="{_WIDTH}" height="{_HEIGHT}" fill="white"/>',
    ]
    heading = title or f"Roofline of {device.display_name} ({device.name})"
    out.append(
        f'<text class="title" x="{_LEFT}" y="28" font-size="15" font-weight="bold">'
        f"{escape(heading)}</text>"
    )
    out += _axes_svg(axes)
    out += _roofs_svg(axes, roofs, bandwidth)
    out += _points_svg(axes, rows, x_min, y_min)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _tick(
    k: int, axis: str, line: tuple[object, ...], label: tuple[object, object], anchor: str
) -> list[str]:
    """The grid line (`x1, y1, x2, y2`) and the label `10^k` (at `x, y`) of one decade."""
    x1, y1, x2, y2 = line
    return [
        f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#e5e5e5"/>',
        f'<text class="tick {axis}" x="{label[0]}" y="{label[1]}" text-anchor="{anchor}">'
        f"10{str(k).translate(_SUPERSCRIPT)}</text>",
    ]


def _axes_svg(axes: _Axes) -> list[str]:
    left, right = _LEFT, _LEFT + axes.plot_w
    top, bottom = _TOP, _TOP + axes.plot_h
    out = [
        f'<rect class="frame" x="{left}" y="{top}" width="{axes.plot_w}" height="{axes.plot_h}" '
        'fill="none" stroke="#333"/>'
    ]
    for k in range(axes.x[0], axes.x[1] + 1):
        x = f"{axes.px(10.0**k):.1f}"
        out += _tick(k, "x", (x, top, x, bottom), (x, bottom + 18), "middle")
    for k in range(axes.y[0], axes.y[1] + 1):
        y = axes.py(10.0**k)
        out += _tick(
            k, "y", (left, f"{y:.1f}", right, f"{y:.1f}"), (left - 8, f"{y + 4:.1f}"), "end"
        )
    out.append(
        f'<text class="axis x" x="{left + axes.plot_w / 2:.1f}" y="{_HEIGHT - 22}" '
        'text-anchor="middle">arithmetic intensity (FLOP / byte)</text>'
    )
    out.append(
        f'<text class="axis y" x="22" y="{top + axes.plot_h / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 22 {top + axes.plot_h / 2:.1f})">attained performance '
        "(FLOP / s)</text>"
    )
    return out


def _roofs_svg(axes: _Axes, roofs: dict[float, list[str]], bandwidth: float) -> list[str]:
    x_lo, x_hi = 10.0 ** axes.x[0], 10.0 ** axes.x[1]
    top = max(roofs)
    out = []
    # the memory slope, from the left edge (or the bottom) to the highest roof's ridge
    start = max(x_lo, 10.0 ** axes.y[0] / bandwidth)
    ridge = top / bandwidth
    out.append(
        f'<line class="roof memory" x1="{axes.px(start):.1f}" y1="{axes.py(start * bandwidth):.1f}" '
        f'x2="{axes.px(ridge):.1f}" y2="{axes.py(top):.1f}" stroke="#444" stroke-width="2"/>'
    )
    mid = start * 4
    angle = -math.degrees(
        math.atan2(
            axes.py(start * bandwidth) - axes.py(ridge * bandwidth),
            axes.px(ridge) - axes.px(start),
        )
    )
    mx, my = axes.px(mid), axes.py(mid * bandwidth) - 6
    out.append(
        f'<text class="roof-label memory" x="{mx:.1f}" y="{my:.1f}" '
        f'transform="rotate({angle:.1f} {mx:.1f} {my:.1f})" fill="#444">memory '
        f"{_si(bandwidth, 'B/s')}</text>"
    )
    for peak, names in sorted(roofs.items()):
        ridge = peak / bandwidth
        dash = "" if peak == top or "fp32" in names else ' stroke-dasharray="6 4"'
        x1, x2, y = axes.px(ridge), axes.px(x_hi), axes.py(peak)
        out.append(
            f'<line class="roof compute" x1="{x1:.1f}" y1="{y:.1f}" x2="{x2:.1f}" y2="{y:.1f}" '
            f'stroke="#444" stroke-width="1.5"{dash}/>'
        )
        out.append(
            f'<text class="roof-label compute" x="{x2 + 6:.1f}" y="{y + 4:.1f}" fill="#444">'
            f"{escape(', '.join(names))} {_si(peak, 'FLOP/s')}</text>"
        )
    return out


def _points_svg(axes: _Axes, rows: Sequence[Row], x_min: float, y_min: float) -> list[str]:
    groups: dict[tuple[float, float], list[Row]] = {}
    for row in rows:
        intensity, attained, _ = _position(row, x_min, y_min)
        key = (round(axes.px(intensity), 1), round(axes.py(attained), 1))
        groups.setdefault(key, []).append(row)
    out: list[str] = []
    labels: list[tuple[float, float, str, str]] = []
    for index, ((x, y), members) in enumerate(groups.items()):
        colour = _COLOURS[index % len(_COLOURS)]
        for row in members:
            on_axes = _position(row, x_min, y_min)[2]
            fill = colour if on_axes else "white"
            cost = row.cost
            tip = (
                f"{row.path}: {cost.flops:,} FLOPs, {cost.bytes:,} bytes, "
                f"{cost.time_s:.3g} s, {cost.bound} bound"
            )
            attr = escape(row.path, {'"': "&quot;"})
            out.append(
                f'<circle class="point" data-path="{attr}" '
                f'cx="{x}" cy="{y}" r="5" fill="{fill}" stroke="{colour}" stroke-width="1.5">'
                f"<title>{escape(tip)}</title></circle>"
            )
        text = (
            members[0].path
            if len(members) == 1
            else f"{members[0].path} (+{len(members) - 1} alike)"
        )
        if not _position(members[0], x_min, y_min)[2]:
            text += " (no FLOPs)" if members[0].cost.flops == 0 else " (no bytes)"
        labels.append((x, y, text, colour))
    out += _labels_svg(labels)
    return out


def _labels_svg(labels: list[tuple[float, float, str, str]]) -> list[str]:
    """Each label right of its point and just below it (clear of a roof through the point and
    of the memory slope), pushed down so that it overlaps no other label and no point."""
    out = []
    # (x0, x1, baseline) of what a label must not cover: the points, then the labels placed
    placed: list[tuple[float, float, float]] = [(x - 6, x + 6, y + 4) for x, y, _, _ in labels]
    for x, y, text, colour in sorted(labels, key=lambda item: item[1]):
        width = 7.0 * len(text)
        ly = y + 13
        while any(
            abs(ly - py) < 14 and x + 9 < px1 and px0 < x + 9 + width for px0, px1, py in placed
        ):
            ly += 14
        placed.append((x + 9, x + 9 + width, ly))
        if ly - (y + 13) > 1:
            out.append(
                f'<line class="leader" x1="{x + 4:.1f}" y1="{y:.1f}" x2="{x + 9:.1f}" '
                f'y2="{ly - 4:.1f}" stroke="{colour}" stroke-width="0.8"/>'
            )
        out.append(
            f'<text class="label" x="{x + 9:.1f}" y="{ly:.1f}" fill="{colour}">'
            f"{escape(text)}</text>"
        )
    return out
