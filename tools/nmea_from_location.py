#!/usr/bin/env python3
"""NMEA 0183 from a drive's location.csv: one $GPRMC and one $GPGGA sentence per row.

    nmea_from_location.py DRIVE/location.csv [--out FILE] [--epoch 2024-06-01T12:00:00Z]
    nmea_from_location.py --self-test

location.csv is `t,t_wall,lat,lon,alt,h_acc,v_acc,speed,speed_acc,course,course_acc`
(docs/reference/contract.md, section 13): `t` seconds on the recording's clock, `t_wall` seconds since the
Unix epoch (UTC), lat/lon in degrees, alt in metres, speed in m/s and course in degrees clockwise from
true north, where a negative speed or course means "unknown" (CoreLocation's convention).

The sentences' UTC time is `t_wall` when the row has one (> 0); otherwise the fixed `--epoch`
plus `t`, so that a drive without wall time still gives gpsd a sane, increasing clock (a t_wall of 0
would put the fix in 1970, which gpsd reads as 2070 from RMC's two-digit year). Speed is written in
knots with 3 decimals, course in degrees with 2, time to the centisecond: what gpsd parses back
loses at most 0.0003 m/s and 0.005 degrees. A row without a position gives a void fix (RMC status
V, GGA quality 0); an unknown speed or course leaves its field empty. The accuracy columns have no
place in RMC/GGA and are not written (GGA carries a nominal HDOP of 1.0 and 8 satellites).

Standard library only; the output lines end with CR LF as NMEA 0183 requires.
"""
import argparse
import contextlib
import csv
import datetime as dt
import io
import math
import sys
from pathlib import Path

KNOT = 1852.0 / 3600.0  # m/s per knot, exact by definition
DEFAULT_EPOCH = "2024-06-01T12:00:00Z"


def checksum(body: str) -> str:
    """XOR of the characters between '$' and '*', two upper-case hex digits."""
    value = 0
    for char in body:
        value ^= ord(char)
    return f"{value:02X}"


def sentence(body: str) -> str:
    return f"${body}*{checksum(body)}"


def number(text):
    """A finite float, or None for a blank or non-numeric field."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def utc_time(seconds: float):
    """(hhmmss.ss, ddmmyy) of a Unix time, rounded to the centisecond first, so that 59.996 s
    becomes the next minute rather than '60.00'."""
    centis = round(seconds * 100)
    moment = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=centis // 100)
    return f"{moment:%H%M%S}.{centis % 100:02d}", f"{moment:%d%m%y}"


def angle(degrees: float, width: int, positive: str, negative: str):
    """NMEA (d)ddmm.mmmmm and hemisphere; rounded in integer units of 1e-5 minutes so that the
    minutes never read 60."""
    units = round(abs(degrees) * 60 * 100_000)
    whole, minutes = divmod(units, 60 * 100_000)
    return f"{whole:0{width}d}{minutes // 100_000:02d}.{minutes % 100_000:05d}", positive if degrees >= 0 else negative


def course_field(course):
    """Degrees in [0, 360) with 2 decimals; a course that rounds to 360.00 is 0.00."""
    if course is None or course < 0:
        return ""
    hundredths = round(course * 100) % 36000
    return f"{hundredths // 100}.{hundredths % 100:02d}"


def speed_field(speed):
    if speed is None or speed < 0:
        return ""
    return f"{speed / KNOT:.3f}"


def sentences_for(row: dict, epoch: float):
    """The RMC and GGA sentences of one location.csv row (a dict of its text fields)."""
    t = number(row.get("t"))
    wall = number(row.get("t_wall"))
    if wall is not None and wall > 0:
        seconds = wall
    elif t is not None:
        seconds = epoch + t
    else:
        raise ValueError("row has neither t_wall nor t")
    clock, date = utc_time(seconds)
    lat, lon, alt = number(row.get("lat")), number(row.get("lon")), number(row.get("alt"))
    fixed = lat is not None and lon is not None and abs(lat) <= 90 and abs(lon) <= 180
    if fixed:
        lat_text, ns = angle(lat, 2, "N", "S")
        lon_text, ew = angle(lon, 3, "E", "W")
    else:
        lat_text = ns = lon_text = ew = ""
    speed, course = number(row.get("speed")), number(row.get("course"))
    rmc = ",".join(["GPRMC", clock, "A" if fixed else "V", lat_text, ns, lon_text, ew,
                    speed_field(speed), course_field(course), date, "", "", "A" if fixed else "N"])
    altitude = f"{alt:.1f}" if fixed and alt is not None else ""
    gga = ",".join(["GPGGA", clock, lat_text, ns, lon_text, ew, "1" if fixed else "0",
                    "08" if fixed else "00", "1.0" if fixed else "", altitude, "M" if altitude else "",
                    "0.0", "M", "", ""])
    return [sentence(rmc), sentence(gga)]


def parse_epoch(text: str) -> float:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def convert(lines, epoch: float):
    """All sentences of a location.csv given as an iterable of text lines; a row with neither time
    is skipped with a warning on standard error (it cannot be placed in the log)."""
    out = []
    reader = csv.DictReader(lines)
    for row in reader:
        try:
            out.extend(sentences_for(row, epoch))
        except ValueError as error:
            print(f"warning: location.csv line {reader.line_num}: {error}, skipped", file=sys.stderr)
    return out


def self_test() -> int:
    """Checksums recomputed independently, and speed/course/time/position read back."""
    failures = []

    def check(condition, message):
        if not condition:
            failures.append(message)

    # A known sentence (NMEA 0183 examples in the wild): the checksum of this GGA body is 47.
    check(checksum("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,") == "47", "known GGA checksum")
    epoch = parse_epoch(DEFAULT_EPOCH)
    rows = [
        {"t": "0", "t_wall": "", "lat": "48.1173", "lon": "-11.5166667", "alt": "545.4", "speed": "12", "course": "0"},
        {"t": "0.1", "t_wall": "0", "lat": "-33.9", "lon": "151.2", "alt": "", "speed": "0.5144", "course": "359.999"},
        {"t": "0.2", "t_wall": "1780000000.996", "lat": "0", "lon": "179.99999999", "alt": "3", "speed": "37.5",
         "course": "271.234"},
        {"t": "0.3", "t_wall": "", "lat": "", "lon": "", "alt": "", "speed": "-1", "course": "-1"},
    ]
    for index, row in enumerate(rows):
        for text in sentences_for(row, epoch):
            check(text.startswith("$") and text[-3] == "*", f"row {index}: framing of {text}")
            body, _, given = text[1:].rpartition("*")
            value = 0
            for byte in body.encode("ascii"):
                value ^= byte
            check(given == f"{value:02X}", f"row {index}: checksum of {text}")
            fields = body.split(",")
            if fields[0] == "GPRMC":
                speed, course = number(row["speed"]), number(row["course"])
                if speed is not None and speed >= 0:
                    check(abs(float(fields[7]) * KNOT - speed) <= 0.0005 * KNOT + 1e-12, f"row {index}: speed {fields[7]}")
                else:
                    check(fields[7] == "", f"row {index}: unknown speed written as {fields[7]!r}")
                if course is not None and course >= 0:
                    back = float(fields[8])
                    check(0 <= back < 360, f"row {index}: course {fields[8]} outside [0, 360)")
                    error = (back - course + 180) % 360 - 180
                    check(abs(error) <= 0.005 + 1e-9, f"row {index}: course {fields[8]} for {course}")
                else:
                    check(fields[8] == "", f"row {index}: unknown course written as {fields[8]!r}")
                check(fields[2] == ("V" if row["lat"] == "" else "A"), f"row {index}: status {fields[2]}")
                check(fields[1][4:6] != "60" and float(fields[1][4:]) < 60, f"row {index}: seconds {fields[1]}")
                if row["lat"]:
                    lat = int(fields[3][:2]) + float(fields[3][2:]) / 60
                    lon = int(fields[5][:3]) + float(fields[5][3:]) / 60
                    lat = -lat if fields[4] == "S" else lat
                    lon = -lon if fields[6] == "W" else lon
                    check(abs(lat - float(row["lat"])) < 1e-6 and abs(lon - float(row["lon"])) < 1e-6,
                          f"row {index}: position {fields[3:7]}")
                    check(float(fields[3][2:]) < 60 and float(fields[5][3:]) < 60, f"row {index}: minutes")
    first = sentences_for(rows[0], epoch)[0].split(",")
    check(first[1] == "120000.00" and first[9] == "010624", f"empty t_wall: epoch + t, got {first[1]} {first[9]}")
    third = sentences_for(rows[2], epoch)[0].split(",")
    check(third[1].endswith(".00"), f"t_wall .996 rounds to the next second, got {third[1]}")
    second = sentences_for(rows[1], epoch)[0].split(",")
    check(second[1] == "120000.10", f"t_wall 0 counts as unknown, got {second[1]}")
    csv_text = ["t,t_wall,lat,lon,alt,h_acc,v_acc,speed,speed_acc,course,course_acc",
                "1.0,,37.4,-122.1,50,5,3,12.000,0.3,45.00,2"]
    check(len(convert(csv_text, epoch)) == 2, "one pair per row")
    with contextlib.redirect_stderr(io.StringIO()) as warnings:
        check(len(convert(csv_text + [",,1,2,3,5,3,4,0.3,5,1"], epoch)) == 2, "a row without a time is skipped")
    check("line 3" in warnings.getvalue(), f"the skipped row is named: {warnings.getvalue()!r}")
    for failure in failures:
        print("FAIL:", failure, file=sys.stderr)
    print(f"self-test: {'failed' if failures else 'passed'} ({len(failures)} failures)")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("location", nargs="?", type=Path, help="a drive's location.csv")
    parser.add_argument("--out", type=Path, help="write here instead of standard output")
    parser.add_argument("--epoch", default=DEFAULT_EPOCH, help="UTC time of t = 0 for rows without t_wall")
    parser.add_argument("--self-test", action="store_true", help="check checksums and a speed/course round trip")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if args.location is None:
        parser.error("a location.csv is required")
    with args.location.open(newline="") as handle:
        lines = convert(handle, parse_epoch(args.epoch))
    text = "".join(line + "\r\n" for line in lines)
    if args.out:
        args.out.write_text(text, newline="")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
