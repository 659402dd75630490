from colmeia.cli import main

main()
