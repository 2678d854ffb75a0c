#pragma once

#include "io/result_types.hpp"

namespace shardrun::io {

/**
 * Where one rank's finished tasks go. The runner calls record() once per finished task
 * (ok or failed after its last attempt) from one thread, and commit() at batch
 * boundaries and at the end; what commit() returned from survives a kill -9.
 */
class ResultSink {
public:
    virtual ~ResultSink() = default;

    /** Buffers one finished task. @param values  empty when record.status != ok */
    virtual void record(const TaskRecord& record, const TaskValues& values) = 0;

    /**
     * Makes every task recorded so far durable. Costs a file and two fsyncs (layout
     * shards) or two collective flushes (single): call it every few seconds or few
     * thousand tasks and at the end, not after every task.
     */
    virtual void commit() = 0;
};

}  // namespace shardrun::io
