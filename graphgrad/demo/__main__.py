from .digits import main

main()
