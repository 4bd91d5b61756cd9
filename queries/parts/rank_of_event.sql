(SELECT rank FROM scope_rank WHERE thread_id = e.thread_id)
