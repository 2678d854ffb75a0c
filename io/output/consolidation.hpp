#pragma once

#include <cstdint>
#include <string>

/**
 * @file
 * @internal Results stored once. When a complete master (every task final) is published
 * (fsynced and renamed), an element's segments hold nothing the master lacks: its manifest
 * records `consolidated` (durably, before anything is removed), then its segments, single
 * file and params.h5 are removed. From then on the element's rows are the master's rows of
 * its task ids plus whatever segments are there: a resume's new commits, or those a kill -9
 * left in the middle of the removal (the rows are the same; TaskStream's rule picks one).
 * Fields over items (`rows`) are read back per task from the master (master::ItemRowsReader).
 * A consolidated element's rows are read by add_element_rows() (io/gather/task_stream.hpp).
 */
namespace shardrun::io {

/** True when element `array_index` has no committed segment and no single file. */
bool element_rows_dropped(const std::string& path, int array_index);

/**
 * Removes the segments, single file and params.h5 of element `array_index`. Call it only
 * once the complete master is published and the element's manifest says consolidated. A
 * file that cannot be removed is named in a warning (the results stay correct).
 * Test hook: SHARDRUN_TEST_KILL_DROP_AFTER=<n> kills the process (SIGKILL) once n files
 * are removed, to leave the half-removed state a crash would.
 */
void drop_element_rows(const std::string& path, int array_index);

}  // namespace shardrun::io
