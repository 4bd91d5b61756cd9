(SELECT t.rank FROM thread th JOIN process pr ON pr.id = th.process_id
        JOIN trace t ON t.id = pr.trace_id WHERE th.id = e.thread_id)
