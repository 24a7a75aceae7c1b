"""Findings: what the sanitizer and the coherency model report about a dispatch.

A finding names one hazard at one place: its kind (a key of KINDS), the kernel, the
instruction (byte offset and disassembly) and, where they apply, the wave, workgroup, lane and
byte address of its first occurrence. Findings of one kind at one instruction (and address
or register, see ``Finding.key``) are reported once, with ``count`` the number of times it
happened (wave-instructions or lanes, as the kind says).
"""
from __future__ import annotations

from dataclasses import dataclass, field

#: finding kind -> what it means (one line; the finding's ``detail`` says the particulars)
KINDS = {
    "unwaited-read": "a register is read before the s_waitcnt that covers the load writing it",
    "store-data-overwritten": "a store's data VGPR is overwritten before the s_waitcnt "
                              "expcnt that says the store has read it",
    "lds-race": "waves of one workgroup access the same LDS bytes, at least one writing, with "
                "no s_barrier between the accesses",
    "global-race": "work-items of a dispatch access the same global bytes without atomics: two "
                   "writes, or a read and a write from different workgroups",
    "stale-l1": "a read may see stale data in its CU's L1 (another CU or an earlier dispatch "
                "wrote the line, and no GLC load or L1 invalidate came between)",
    "missing-sync": "a dispatch consumes data an earlier one wrote without the barrier and "
                    "cache operations caches-and-coherency.txt prescribes",
    "uninitialized-read": "a read of a VGPR, SGPR or LDS byte nothing has written",
    "out-of-bounds": "a buffer, LDS or scratch access outside its range",
    "misaligned": "an access whose address is not a multiple of its natural alignment",
    "spin-hang": "a wave waits on a memory value that, under the coherency rules, it can "
                 "never see change",
}


@dataclass
class Finding:
    """One hazard, at its first occurrence, with how often it happened.

    ``pc`` is the instruction's byte offset in the kernel's code; ``instruction`` its
    disassembly; ``wave`` the dispatch-wide wave index (workgroup by workgroup); ``workgroup``
    the linear workgroup index (x fastest); ``lane`` and ``address`` -1 where they do not
    apply. ``detail`` says what exactly (which register, which other access, what to add)."""

    kind: str
    kernel: str
    pc: int = -1
    instruction: str = ""
    wave: int = -1
    workgroup: int = -1
    lane: int = -1
    address: int = -1
    detail: str = ""
    count: int = 1
    #: extra identity beyond (kind, kernel, pc): a register name, a buffer, the other PC
    what: str = field(default="", compare=False)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown finding kind {self.kind!r}; kinds: {', '.join(KINDS)}")

    @property
    def key(self) -> tuple:
        """Findings with the same key are one finding (their counts add up)."""
        return (self.kind, self.kernel, self.pc, self.what)

    def __str__(self) -> str:
        where = f"{self.kernel}"
        if self.pc >= 0:
            where += f" pc 0x{self.pc:x}"
            if self.instruction:
                where += f" `{self.instruction}`"
        at = []
        if self.workgroup >= 0:
            at.append(f"workgroup {self.workgroup}")
        if self.wave >= 0:
            at.append(f"wave {self.wave}")
        if self.lane >= 0:
            at.append(f"lane {self.lane}")
        if self.address >= 0:
            at.append(f"address 0x{self.address:x}")
        times = f" (x{self.count})" if self.count > 1 else ""
        return (f"{self.kind}: {where}" + (f" [{', '.join(at)}]" if at else "")
                + f": {self.detail or KINDS[self.kind]}{times}")


def merge_findings(findings) -> list:
    """One finding per key, the first occurrence kept and the counts summed, in the order
    of first occurrence."""
    out = {}
    for f in findings:
        k = f.key
        if k in out:
            out[k].count += f.count
        else:
            out[k] = Finding(**{**f.__dict__})
    return list(out.values())
