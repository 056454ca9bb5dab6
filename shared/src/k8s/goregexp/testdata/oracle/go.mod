module goregexp-oracle

go 1.26
