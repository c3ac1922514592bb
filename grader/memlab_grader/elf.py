"""What grade.py reads in a compiled file itself: the sections of a 64-bit ELF
file (an object or a shared library), the GPU code an object holds, and the
names a library imports. Only the parts of the format these need."""
from __future__ import annotations

import struct
from typing import List, Tuple

SHT_DYNSYM = 11
FATBIN_MAGIC = 0xBA55ED50


class NotElf(ValueError):
    """The file is not a 64-bit little-endian ELF file, or is cut short."""


def sections(elf: bytes) -> List[Tuple[str, int, int, bytes]]:
    """The sections of @p elf in their order (a link names another by index):
    (name, type, link, data). Names may repeat."""
    if elf[:4] != b"\x7fELF" or len(elf) < 0x40 or elf[4] != 2 or elf[5] != 1:
        raise NotElf("not a 64-bit little-endian ELF file")
    try:
        table, = struct.unpack_from("<Q", elf, 0x28)
        entry_size, count, names_index = struct.unpack_from("<HHH", elf, 0x3a)
        headers = [struct.unpack_from("<IIQQQQI", elf, table + i * entry_size) for i in range(count)]
    except struct.error as error:
        raise NotElf(str(error)) from None
    names = elf[headers[names_index][4]:][:headers[names_index][5]] if count else b""
    found = []
    for name, kind, _, _, offset, size, link in headers:
        label = names[name:names.index(b"\0", name)].decode("latin-1") if name < len(names) else ""
        found.append((label, kind, link, elf[offset:offset + size] if kind != 8 else b""))  # 8: no bits in the file
    return found


def fatbins(elf: bytes) -> bytes:
    """The fatbins in @p elf's .nv_fatbin section, whole and one after another
    (the padding between them dropped); b"" when it has none."""
    data = b"".join(data for name, _, _, data in sections(elf) if name == ".nv_fatbin")
    found, at = [], 0
    while at + 16 <= len(data):
        magic, _, header_size, fat_size = struct.unpack_from("<IHHQ", data, at)
        if magic != FATBIN_MAGIC:
            at += 8  # fatbins are 8-byte aligned in the section
            continue
        found.append(data[at:at + header_size + fat_size])
        at += header_size + fat_size
    return b"".join(found)


def imported_names(elf: bytes) -> List[str]:
    """The names a shared library @p elf takes from other libraries: its dynamic
    symbols that it does not define, whatever the source called them (an asm
    label renames a declaration; the linked name is the one imported)."""
    by_index = sections(elf)
    names = []
    for _, kind, link, data in by_index:
        if kind != SHT_DYNSYM:
            continue
        strings = by_index[link][3] if link < len(by_index) else b""
        for at in range(0, len(data) - 23, 24):
            name, _, _, section_index = struct.unpack_from("<IBBH", data, at)
            if section_index == 0 and name:
                names.append(strings[name:strings.index(b"\0", name)].decode("latin-1"))
    return sorted(set(names))
