from navkit.benchmark import main

raise SystemExit(main())
