from voicehost.cli import main

raise SystemExit(main())
