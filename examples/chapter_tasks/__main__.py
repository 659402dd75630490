from examples.chapter_tasks.run import main

raise SystemExit(main())
