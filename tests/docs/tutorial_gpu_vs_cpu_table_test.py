"""docs/tutorials/gpu-vs-cpu-table.md as a reader follows it: the GEMM and blur job files with `device` as a
sweep axis, and the CPU half of the page (`--set 'sweep.device=[cpu]'`, the tables, the pandas read) with
each quoted output checked against the real run. Then the GPU node's commands of step 2 (a `bash` block,
shown only) run as written here: on a machine without a usable GPU only the cuda tasks fail, each saying
the rank has no CUDA device, and the tables have the columns the page's `text` block shows, with `-` in
the GPU's; where a GPU is, every task is ok and the GPU columns are filled."""
import unittest

import tutorial_support


def table_rows(printed):
    """A `shardrun table` text output as (header words, rows of words)."""
    lines = [line.split() for line in printed if line.strip()]
    return lines[0], lines[1:]


class GpuVsCpuTableTutorialTest(unittest.TestCase):
    def test_the_page_as_written(self):
        steps = tutorial_support.page("gpu-vs-cpu-table")
        session = tutorial_support.reader(self)
        session.run(steps)

        # Step 2's commands, as a reader on the GPU node types them (the folder and job files are the page's).
        gpu_block = [s for s in steps if s.kind == "shown" and s.path == "bash" and s.section.startswith("2.")]
        self.assertEqual(len(gpu_block), 1, "step 2 has one block of the GPU node's commands")
        commands = [line for line in gpu_block[0].text.splitlines() if line.strip()]
        shape = [s for s in steps if s.kind == "shown" and s.path == "text" and s.section.startswith("2.")][0].text
        headers = [line.split() for line in shape.splitlines() if line.split() and line.split()[0] in ("n", "height")]
        codes = {}
        tables = []
        for command in commands:
            code, printed = session.command(command)
            if command.startswith("shardrun run"):
                codes[command] = (code, printed)
            else:
                self.assertEqual(code, 0, f"{command}:\n" + "\n".join(printed))
                tables.append(table_rows(printed))
        gpu_here = all(code == 0 for code, _ in codes.values())
        for command, (code, printed) in codes.items():
            if not gpu_here:
                self.assertEqual(code, 1, f"{command}: only the cuda tasks fail\n" + "\n".join(printed))
                failed = [line for line in printed if line.strip().startswith("failed #")]
                self.assertTrue(failed, "\n".join(printed))
                for line in failed:
                    self.assertIn("this rank has no CUDA device", line)
        self.assertEqual([header for header, _ in tables], headers, "the tables' columns are the page's")
        for header, rows in tables:
            gpu_columns = [k for k, name in enumerate(header) if "cuda" in name]
            self.assertEqual(len(gpu_columns), 2, header)
            for row in rows:
                cpu = row[1]
                self.assertNotEqual(cpu, "-", f"the CPU half is measured: {row}")
                for k in gpu_columns:
                    self.assertEqual(row[k] != "-", gpu_here, f"{header}: {row}")


if __name__ == "__main__":
    tutorial_support.require_pyenv()
    unittest.main(verbosity=2)
