from webgauge.cli.main import main

main()
