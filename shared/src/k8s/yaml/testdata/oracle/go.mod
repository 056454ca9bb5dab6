module kubectl-pacto/yaml-oracle

go 1.23

require sigs.k8s.io/yaml v1.4.0
