"""Built-in ingestion plugins (:mod:`.catalog`) and the pipeline that runs a project's configs (:mod:`.pipeline`)."""
