package optimize

func childSearch(dir, ledger string) int { return 0 }
