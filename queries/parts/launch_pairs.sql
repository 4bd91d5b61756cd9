SELECT {sql:rank_of_event} AS rank, e.name_id, a.start_ns AS launch_ns, a.dur_ns AS cpu_ns, e.dur_ns AS gpu_ns,
         max(e.start_ns - (a.start_ns + a.dur_ns), 0) AS delay_ns
  FROM scope_event e JOIN main.event a ON a.id = e.launch_id
  WHERE e.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset})
    AND a.name_id IN (SELECT id FROM string WHERE value IN ('cudaLaunchKernel', 'cudaLaunchKernelExC', 'cudaMemcpyAsync',
                                                           'cudaMemsetAsync', 'runFunction - job_prep_and_submit_for_execution'))
