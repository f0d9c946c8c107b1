"""Checks that an MCAP file was finished (docs/guides/mcap.md): a run stopped or failed must still close it.

Finished means: the magic at both ends; a Footer (opcode 0x02, length 20) just before the closing
magic that points at a summary section (summary_start > 0) and whose CRC, when not zero, matches;
and a Statistics record (opcode 0x0B) in that section counting more than zero messages. Prints the
message count. Standard library only.

Usage: check_mcap_complete.py FILE.mcap
"""

import struct
import sys
import zlib

MAGIC = b"\x89MCAP0\r\n"
FOOTER, STATISTICS = 0x02, 0x0B


def check(path):
    data = open(path, "rb").read()
    if len(data) < 2 * len(MAGIC) + 29:
        return f"{len(data)} bytes: too short for an MCAP file"
    if data[:8] != MAGIC:
        return "does not start with the MCAP magic"
    if data[-8:] != MAGIC:
        return "does not end with the MCAP magic (not finished)"
    footer = len(data) - 8 - 29
    opcode, length = struct.unpack_from("<BQ", data, footer)
    if opcode != FOOTER or length != 20:
        return f"no Footer before the closing magic (opcode 0x{opcode:02x}, length {length})"
    summary_start, summary_offset_start, crc = struct.unpack_from("<QQI", data, footer + 9)
    if summary_start == 0:
        return "the Footer has no summary section (summary_start 0)"
    if not 8 <= summary_start <= footer or not (summary_offset_start == 0 or summary_start <= summary_offset_start <= footer):
        return f"the Footer points outside the file (summary {summary_start}, offsets {summary_offset_start}, footer {footer})"
    if crc != 0 and zlib.crc32(data[summary_start:footer + 9 + 16]) != crc:
        return "the summary section's CRC does not match the Footer's"
    end = summary_offset_start or footer
    at, messages = summary_start, None
    while at < end:
        if at + 9 > end:
            return f"a record header at {at} runs past the summary section"
        opcode, length = struct.unpack_from("<BQ", data, at)
        if at + 9 + length > end:
            return f"record 0x{opcode:02x} at {at} runs past the summary section"
        if opcode == STATISTICS:
            (messages,) = struct.unpack_from("<Q", data, at + 9)
        at += 9 + length
    if messages is None:
        return "no Statistics record in the summary section"
    if messages == 0:
        return "the Statistics record counts no messages"
    print(f"check_mcap_complete: {path}: {len(data)} bytes, {messages} messages, summary at {summary_start}")
    return None


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_mcap_complete.py FILE.mcap")
    try:
        problem = check(sys.argv[1])
    except OSError as error:
        problem = str(error)
    if problem:
        sys.exit(f"check_mcap_complete: {sys.argv[1]}: {problem}")


if __name__ == "__main__":
    main()
