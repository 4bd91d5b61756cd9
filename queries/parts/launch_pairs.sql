SELECT {sql:rank_of_event} AS rank, e.thread_id, e.name_id, e.device, e.launch_ns, e.launch_dur_ns AS cpu_ns, e.dur_ns AS gpu_ns,
         max(e.start_ns - (e.launch_ns + e.launch_dur_ns), 0) AS delay_ns, e.id
  FROM scope_gpu e -- its launch joined once (scope.c)
  WHERE e.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}) AND e.launch_ns IS NOT NULL
    AND e.launch_name_id IN (SELECT id FROM string WHERE value IN ('cudaLaunchKernel', 'cudaLaunchKernelExC', 'cudaMemcpyAsync',
                                                           'cudaMemsetAsync', 'runFunction - job_prep_and_submit_for_execution'))
