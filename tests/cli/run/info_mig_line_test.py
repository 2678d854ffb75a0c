"""`shardrun info`'s MIG line lines up with the lines around it (issue 39's trial: it was written
"MIG: ..." at the left margin, under lines indented "  label       value"). Checked for the three
things info can say of MIG: unknown (no nvidia-smi), off, and MIG devices (made-up nvidia-smi -L
listings, so no GPU is needed)."""
import os
import unittest

from harness import run, scratch_dir

# The label column of info's lines under the rank table: "  telemetry   none, ..." puts values here.
VALUE_COLUMN = len("  telemetry   ")

WHOLE_GPU = "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5d5ba0d6-0000-0000-0000-000000000000)\n"
MIG_GPU = (WHOLE_GPU + "  MIG 3g.40gb     Device  0: (UUID: MIG-aaaaaaaa-0000-0000-0000-000000000000)\n"
           "  MIG 3g.40gb     Device  1: (UUID: MIG-bbbbbbbb-0000-0000-0000-000000000000)\n")


class InfoMigLineTest(unittest.TestCase):
    def info_lines(self, listing):
        """info's stdout lines, with nvidia-smi -L printing `listing` (None: no nvidia-smi on PATH)."""
        env = {"PATH": "/usr/bin:/bin"}
        if listing is not None:
            bin_dir = scratch_dir(self)
            with open(os.path.join(bin_dir, "nvidia-smi"), "w") as f:
                f.write(f"#!/bin/sh\ncat <<'END'\n{listing}END\n")
            os.chmod(os.path.join(bin_dir, "nvidia-smi"), 0o755)
            env["PATH"] = f"{bin_dir}:/usr/bin:/bin"
        proc = run(["info"], env=env)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc.stdout.splitlines()

    def mig_block(self, lines):
        """The MIG line and the lines that continue it, checked against the telemetry line's columns."""
        telemetry = [line for line in lines if line.lstrip().startswith("telemetry ")]
        self.assertEqual(len(telemetry), 1, lines)
        self.assertEqual(len(telemetry[0]) - len(telemetry[0][VALUE_COLUMN:].lstrip()), VALUE_COLUMN, telemetry)
        starts = [i for i, line in enumerate(lines) if line.lstrip().startswith("MIG")]
        self.assertEqual(len(starts), 1, lines)
        first = starts[0]
        block = [lines[first]]
        for line in lines[first + 1:]:
            if not line.startswith(" " * VALUE_COLUMN):
                break
            block.append(line)
        self.assertEqual(block[0][:VALUE_COLUMN], "  MIG" + " " * (VALUE_COLUMN - 5), block)
        self.assertNotEqual(block[0][VALUE_COLUMN], " ", block)
        return [line[VALUE_COLUMN:] for line in block]

    def test_without_nvidia_smi(self):
        self.assertEqual(self.mig_block(self.info_lines(None)), ["unknown (nvidia-smi is not on PATH, or failed)"])

    def test_mig_off(self):
        self.assertEqual(self.mig_block(self.info_lines(WHOLE_GPU)), ["off (1 whole GPU listed by nvidia-smi)"])

    def test_mig_devices_are_listed_under_it(self):
        self.assertEqual(self.mig_block(self.info_lines(MIG_GPU)), [
            "on: ranks bind to one device each, by UUID in CUDA_VISIBLE_DEVICES",
            "GPU 0 NVIDIA A100-SXM4-80GB: MIG 3g.40gb device 0 MIG-aaaaaaaa-0000-0000-0000-000000000000",
            "GPU 0 NVIDIA A100-SXM4-80GB: MIG 3g.40gb device 1 MIG-bbbbbbbb-0000-0000-0000-000000000000",
        ])


if __name__ == "__main__":
    unittest.main()
