-- gpu_typed_rows: the window's GPU rows with their rank and HTA kernel type, once each and unsorted: the
-- C pass of `tracedb overlap` and `kernels --by-type` (analyzer/report/type_sweep.c) groups them itself.
WITH {sql:gpu_typed}
SELECT rank, device, type, s, e FROM g;
