e.kind = {kind:range} AND s.value GLOB 'ProfilerStep#[0-9]*'
