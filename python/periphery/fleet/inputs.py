"""What `periphery-fleet run` is given: video files, drive directories, globs of either, and JSON-lines
manifests, turned into inputs with stable ids.

An input's id names its output folder `DIR/<id>/`: the file or folder name (letters, digits and
`._-` kept, anything else `_`) and the first 8 hex digits of the SHA-1 of its real path, so the same
input always gets the same id (a rerun finds it complete) and two drives both called `drive` do not
collide. A manifest line may give its own `"id"`.

A manifest is a file ending in `.jsonl`; each non-blank line is a JSON string (a path) or an object
`{"path": P, "calibration": C, "id": I}` with `calibration` and `id` optional. Relative paths in a
manifest are relative to the manifest's folder; globs are allowed in `path`.
"""

import glob
import hashlib
import json
import os
import re
from dataclasses import dataclass

from .. import LibraryError, PeripheryError, check_input
from .errors import FleetError, InputError

_GLOB_CHARS = re.compile(r"[*?\[]")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


@dataclass(frozen=True)
class FleetInput:
    """One input of a fleet run.

    id: the output folder's name under DIR; path: the absolute path of the video or drive;
    kind: "video" or "drive"; calibration: an absolute path or None (then `periphery run` takes
    the one in the drive or beside the video); size: bytes (of the frames, for a drive),
    used to start the largest inputs first.
    """

    id: str
    path: str
    kind: str
    calibration: str | None
    size: int


def input_id(path, name=None):
    """The stable id of the input at `path`: `NAME-HHHHHHHH` (see the module's documentation)."""
    real = os.path.realpath(path)
    stem = name if name is not None else os.path.basename(real.rstrip("/"))
    if name is None and os.path.isfile(real):
        stem = os.path.splitext(stem)[0] or stem
    safe = _UNSAFE.sub("_", stem).lstrip(".") or "input"
    digest = hashlib.sha1(real.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{safe[:80]}-{digest}"


def _classify(path, calibration, given_id=None, origin=None):
    """A FleetInput for one path, checked by the library as `periphery run` would open it
    (`periphery.check_input`: what it is, that it exists, that a drive has frames, that a video has
    a calibration), or InputError with the library's message."""
    if calibration is not None:
        calibration = os.path.abspath(calibration)
    try:
        info = check_input(path, calibration=calibration)
    except LibraryError as error:  # not a fault of the input
        raise FleetError(f"the input check needs libperiphery: {error}") from None
    except PeripheryError as error:
        hint = "; to run the videos in a folder, give a glob such as DIR/*.mp4" if os.path.isdir(path) else ""
        if origin is None:
            raise InputError(path, error.message + hint, named=True) from None
        raise InputError(origin, error.message + hint) from None
    if info.kind not in ("drive", "video"):
        raise InputError(origin or path, f"{info.kind}: a fleet runs drives and video files")
    absolute = os.path.abspath(path)
    ident = input_id(absolute) if given_id is None else (_UNSAFE.sub("_", str(given_id)).lstrip(".") or "input")
    return FleetInput(id=ident, path=absolute, kind=info.kind, calibration=calibration, size=info.size_bytes)


def _expand_one(arg, calibration, given_id=None, origin=None):
    if _GLOB_CHARS.search(arg) and not os.path.exists(arg):
        matches = sorted(glob.glob(arg, recursive=True))
        if not matches:
            raise InputError(origin or arg, "the pattern matches nothing")
        return [_classify(m, calibration, None, origin) for m in matches]
    return [_classify(arg, calibration, given_id, origin)]


def _read_manifest(path, calibration):
    """The inputs a JSON-lines manifest lists (see the module's documentation)."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(path, f"cannot read the manifest ({error})") from None
    found = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(where, f"not JSON ({error.msg})") from None
        if isinstance(entry, str):
            entry = {"path": entry}
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str) or not entry["path"]:
            raise InputError(where, 'expected a path string or an object with a "path" string')
        unknown = set(entry) - {"path", "calibration", "id"}
        if unknown:
            raise InputError(where, f"unknown fields {sorted(unknown)} (path, calibration and id are read)")
        own = entry.get("calibration")
        if own is not None and (not isinstance(own, str) or not own):
            raise InputError(where, '"calibration" must be a path string')
        if entry.get("id") is not None and (not isinstance(entry["id"], str) or not entry["id"]):
            raise InputError(where, '"id" must be a non-empty string')
        target = os.path.join(folder, os.path.expanduser(entry["path"]))
        own_calibration = os.path.join(folder, os.path.expanduser(own)) if own else calibration
        found += _expand_one(target, own_calibration, entry.get("id"), where)
    return found


def expand_inputs(args, calibration=None):
    """The inputs named by `args` (paths, globs, `.jsonl` manifests), in order, duplicates once.

    `calibration` applies to every input without one of its own from a manifest.

    Raises InputError naming the file when a path does not exist, a directory is not a drive, a
    pattern matches nothing, a manifest line is malformed, or two different inputs share an id.
    """
    found = []
    for arg in args:
        if arg.endswith(".jsonl") and os.path.isfile(arg):
            found += _read_manifest(arg, calibration)
        else:
            found += _expand_one(arg, calibration)
    unique = {}
    for item in found:
        seen = unique.get(item.id)
        if seen is None:
            unique[item.id] = item
        elif seen != item:
            raise InputError(item.path, f"two inputs share the id {item.id} ({seen.path}, calibration "
                                        f"{seen.calibration} and {item.path}, calibration {item.calibration})")
    if not unique:
        raise InputError(" ".join(args) or "(none)", "no inputs")
    return list(unique.values())
