//! The Go types that gitops-engine converts an unstructured object into before a built-in check
//! runs (`runtime.DefaultUnstructuredConverter.FromUnstructured`), as a table: for each struct,
//! its JSON field names and field types, in Go declaration order (which decides which error Go
//! reports first). Derived from the type declarations of k8s.io/api v0.36.1 (`core/v1`,
//! `apps/v1`, `batch/v1`, `autoscaling/v1`, `autoscaling/v2`), k8s.io/apimachinery v0.36.1
//! (`meta/v1`) and k8s.io/kube-aggregator v0.36.1 (`apiregistration/v1`, `v1beta1`), the
//! versions argo-cd master 37ee0097 builds with. Only what the conversion can observe is kept:
//! pointers are dropped (a JSON null and an absent key both give the zero value), named string
//! types keep their Go name (it appears in `cannot convert int64 to v1.PodPhase`).
//!
//! Table syntax: a line starting at column 0 opens a struct `pkg.Name`, indented lines continue
//! it; each field is `jsonName:type`, `..` naming an embedded (`json:",inline"`) struct. Types:
//! `s`, `b`, `i32`, `i64` (string, bool, int32, int64), `s(go.Name)` (a named string type), `t`
//! (metav1.Time), `q` (resource.Quantity), `ios` (intstr.IntOrString), `raw` (metav1.FieldsV1:
//! any JSON), `bytes` ([]byte), `[T]` (slice), `{T}` (map with string keys), `pkg.Name` (struct).

use std::collections::HashMap;
use std::sync::OnceLock;

/// A scalar Go kind, as `reflect.Kind` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scalar {
    Str,
    Bool,
    I32,
    I64,
}

impl Scalar {
    /// The `reflect.Kind` name (`unrecognized type: int32`).
    pub(super) fn kind_name(self) -> &'static str {
        match self {
            Scalar::Str => "string",
            Scalar::Bool => "bool",
            Scalar::I32 => "int32",
            Scalar::I64 => "int64",
        }
    }
}

/// A field type as the unstructured converter sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Ty {
    /// A scalar and its Go type name (`string`, `v1.PodPhase`).
    Scalar(Scalar, &'static str),
    Time,
    Quantity,
    IntOrString,
    Raw,
    Bytes,
    Slice(Box<Ty>),
    Map(Box<Ty>),
    Struct(&'static str),
}

/// One struct field: its JSON name (empty for an embedded inline struct) and type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Field {
    pub(super) name: &'static str,
    pub(super) ty: Ty,
}

/// Struct name (`apps.Deployment`) to its fields.
pub(super) type Schema = HashMap<&'static str, Vec<Field>>;

/// The parsed table (parsed once).
pub(super) fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| parse(TABLE))
}

fn parse(text: &'static str) -> Schema {
    let mut out: Schema = HashMap::new();
    let mut current: Option<&'static str> = None;
    for line in text.lines() {
        if line.trim().is_empty() {
            continue;
        }
        let mut toks = line.split_whitespace();
        if !line.starts_with(' ') {
            let name = toks.next().expect("struct name");
            out.insert(name, Vec::new());
            current = Some(name);
        }
        let fields = out
            .get_mut(current.expect("continuation without struct"))
            .unwrap();
        for tok in toks {
            let (name, ty) = tok.split_once(':').expect("field is name:type");
            let name = if name == ".." { "" } else { name };
            fields.push(Field {
                name,
                ty: parse_ty(ty),
            });
        }
    }
    out
}

fn parse_ty(t: &'static str) -> Ty {
    if let Some(inner) = t.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        return Ty::Slice(Box::new(parse_ty(inner)));
    }
    if let Some(inner) = t.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        return Ty::Map(Box::new(parse_ty(inner)));
    }
    let (base, go_name) = match t.split_once('(') {
        Some((b, n)) => (b, Some(n.strip_suffix(')').expect("named type"))),
        None => (t, None),
    };
    let scalar = |s: Scalar, plain: &'static str| Ty::Scalar(s, go_name.unwrap_or(plain));
    match base {
        "s" => scalar(Scalar::Str, "string"),
        "b" => scalar(Scalar::Bool, "bool"),
        "i32" => scalar(Scalar::I32, "int32"),
        "i64" => scalar(Scalar::I64, "int64"),
        "t" => Ty::Time,
        "q" => Ty::Quantity,
        "ios" => Ty::IntOrString,
        "raw" => Ty::Raw,
        "bytes" => Ty::Bytes,
        s if s.contains('.') => Ty::Struct(s),
        other => panic!("unknown type {other}"),
    }
}

/// The type table (see the module documentation for its syntax).
const TABLE: &str = r#"
apps.Deployment ..:meta.TypeMeta metadata:meta.ObjectMeta spec:apps.DeploymentSpec
    status:apps.DeploymentStatus
apps.StatefulSet ..:meta.TypeMeta metadata:meta.ObjectMeta spec:apps.StatefulSetSpec
    status:apps.StatefulSetStatus
apps.DaemonSet ..:meta.TypeMeta metadata:meta.ObjectMeta spec:apps.DaemonSetSpec
    status:apps.DaemonSetStatus
apps.ReplicaSet ..:meta.TypeMeta metadata:meta.ObjectMeta spec:apps.ReplicaSetSpec
    status:apps.ReplicaSetStatus
core.PersistentVolumeClaim ..:meta.TypeMeta metadata:meta.ObjectMeta
    spec:core.PersistentVolumeClaimSpec status:core.PersistentVolumeClaimStatus
core.Service ..:meta.TypeMeta metadata:meta.ObjectMeta spec:core.ServiceSpec
    status:core.ServiceStatus
core.Pod ..:meta.TypeMeta metadata:meta.ObjectMeta spec:core.PodSpec status:core.PodStatus
batch.Job ..:meta.TypeMeta metadata:meta.ObjectMeta spec:batch.JobSpec status:batch.JobStatus
arv1.APIService ..:meta.TypeMeta metadata:meta.ObjectMeta spec:arv1.APIServiceSpec
    status:arv1.APIServiceStatus
arv1b1.APIService ..:meta.TypeMeta metadata:meta.ObjectMeta spec:arv1b1.APIServiceSpec
    status:arv1b1.APIServiceStatus
asv1.HorizontalPodAutoscaler ..:meta.TypeMeta metadata:meta.ObjectMeta
    spec:asv1.HorizontalPodAutoscalerSpec status:asv1.HorizontalPodAutoscalerStatus
asv2.HorizontalPodAutoscaler ..:meta.TypeMeta metadata:meta.ObjectMeta
    spec:asv2.HorizontalPodAutoscalerSpec status:asv2.HorizontalPodAutoscalerStatus
meta.TypeMeta kind:s apiVersion:s
meta.ObjectMeta name:s generateName:s namespace:s selfLink:s uid:s(types.UID) resourceVersion:s
    generation:i64 creationTimestamp:t deletionTimestamp:t deletionGracePeriodSeconds:i64
    labels:{s} annotations:{s} ownerReferences:[meta.OwnerReference] finalizers:[s]
    managedFields:[meta.ManagedFieldsEntry]
apps.DeploymentSpec replicas:i32 selector:meta.LabelSelector template:core.PodTemplateSpec
    strategy:apps.DeploymentStrategy minReadySeconds:i32 revisionHistoryLimit:i32 paused:b
    progressDeadlineSeconds:i32
apps.DeploymentStatus observedGeneration:i64 replicas:i32 updatedReplicas:i32 readyReplicas:i32
    availableReplicas:i32 unavailableReplicas:i32 terminatingReplicas:i32
    conditions:[apps.DeploymentCondition] collisionCount:i32
apps.StatefulSetSpec replicas:i32 selector:meta.LabelSelector template:core.PodTemplateSpec
    volumeClaimTemplates:[core.PersistentVolumeClaim] serviceName:s
    podManagementPolicy:s(v1.PodManagementPolicyType)
    updateStrategy:apps.StatefulSetUpdateStrategy revisionHistoryLimit:i32 minReadySeconds:i32
    persistentVolumeClaimRetentionPolicy:apps.StatefulSetPersistentVolumeClaimRetentionPolicy
    ordinals:apps.StatefulSetOrdinals
apps.StatefulSetStatus observedGeneration:i64 replicas:i32 readyReplicas:i32 currentReplicas:i32
    updatedReplicas:i32 currentRevision:s updateRevision:s collisionCount:i32
    conditions:[apps.StatefulSetCondition] availableReplicas:i32
apps.DaemonSetSpec selector:meta.LabelSelector template:core.PodTemplateSpec
    updateStrategy:apps.DaemonSetUpdateStrategy minReadySeconds:i32 revisionHistoryLimit:i32
apps.DaemonSetStatus currentNumberScheduled:i32 numberMisscheduled:i32
    desiredNumberScheduled:i32 numberReady:i32 observedGeneration:i64 updatedNumberScheduled:i32
    numberAvailable:i32 numberUnavailable:i32 collisionCount:i32
    conditions:[apps.DaemonSetCondition]
apps.ReplicaSetSpec replicas:i32 minReadySeconds:i32 selector:meta.LabelSelector
    template:core.PodTemplateSpec
apps.ReplicaSetStatus replicas:i32 fullyLabeledReplicas:i32 readyReplicas:i32
    availableReplicas:i32 terminatingReplicas:i32 observedGeneration:i64
    conditions:[apps.ReplicaSetCondition]
core.PersistentVolumeClaimSpec accessModes:[s(v1.PersistentVolumeAccessMode)]
    selector:meta.LabelSelector resources:core.VolumeResourceRequirements volumeName:s
    storageClassName:s volumeMode:s(v1.PersistentVolumeMode)
    dataSource:core.TypedLocalObjectReference dataSourceRef:core.TypedObjectReference
    volumeAttributesClassName:s
core.PersistentVolumeClaimStatus phase:s(v1.PersistentVolumeClaimPhase)
    accessModes:[s(v1.PersistentVolumeAccessMode)] capacity:{q}
    conditions:[core.PersistentVolumeClaimCondition] allocatedResources:{q}
    allocatedResourceStatuses:{s(v1.ClaimResourceStatus)} currentVolumeAttributesClassName:s
    modifyVolumeStatus:core.ModifyVolumeStatus
core.ServiceSpec ports:[core.ServicePort] selector:{s} clusterIP:s clusterIPs:[s]
    type:s(v1.ServiceType) externalIPs:[s] sessionAffinity:s(v1.ServiceAffinity)
    loadBalancerIP:s loadBalancerSourceRanges:[s] externalName:s
    externalTrafficPolicy:s(v1.ServiceExternalTrafficPolicy) healthCheckNodePort:i32
    publishNotReadyAddresses:b sessionAffinityConfig:core.SessionAffinityConfig
    ipFamilies:[s(v1.IPFamily)] ipFamilyPolicy:s(v1.IPFamilyPolicy)
    allocateLoadBalancerNodePorts:b loadBalancerClass:s
    internalTrafficPolicy:s(v1.ServiceInternalTrafficPolicy) trafficDistribution:s
core.ServiceStatus loadBalancer:core.LoadBalancerStatus conditions:[meta.Condition]
core.PodSpec volumes:[core.Volume] initContainers:[core.Container] containers:[core.Container]
    ephemeralContainers:[core.EphemeralContainer] restartPolicy:s(v1.RestartPolicy)
    terminationGracePeriodSeconds:i64 activeDeadlineSeconds:i64 dnsPolicy:s(v1.DNSPolicy)
    nodeSelector:{s} serviceAccountName:s serviceAccount:s automountServiceAccountToken:b
    nodeName:s hostNetwork:b hostPID:b hostIPC:b shareProcessNamespace:b
    securityContext:core.PodSecurityContext imagePullSecrets:[core.LocalObjectReference]
    hostname:s subdomain:s affinity:core.Affinity schedulerName:s tolerations:[core.Toleration]
    hostAliases:[core.HostAlias] priorityClassName:s priority:i32 dnsConfig:core.PodDNSConfig
    readinessGates:[core.PodReadinessGate] runtimeClassName:s enableServiceLinks:b
    preemptionPolicy:s(v1.PreemptionPolicy) overhead:{q}
    topologySpreadConstraints:[core.TopologySpreadConstraint] setHostnameAsFQDN:b os:core.PodOS
    hostUsers:b schedulingGates:[core.PodSchedulingGate] resourceClaims:[core.PodResourceClaim]
    resources:core.ResourceRequirements hostnameOverride:s
    schedulingGroup:core.PodSchedulingGroup
core.PodStatus observedGeneration:i64 phase:s(v1.PodPhase) conditions:[core.PodCondition]
    message:s reason:s nominatedNodeName:s hostIP:s hostIPs:[core.HostIP] podIP:s
    podIPs:[core.PodIP] startTime:t initContainerStatuses:[core.ContainerStatus]
    containerStatuses:[core.ContainerStatus] qosClass:s(v1.PodQOSClass)
    ephemeralContainerStatuses:[core.ContainerStatus] resize:s(v1.PodResizeStatus)
    resourceClaimStatuses:[core.PodResourceClaimStatus]
    extendedResourceClaimStatus:core.PodExtendedResourceClaimStatus allocatedResources:{q}
    resources:core.ResourceRequirements
    nodeAllocatableResourceClaimStatuses:[core.NodeAllocatableResourceClaimStatus]
batch.JobSpec parallelism:i32 completions:i32 activeDeadlineSeconds:i64
    podFailurePolicy:batch.PodFailurePolicy successPolicy:batch.SuccessPolicy backoffLimit:i32
    backoffLimitPerIndex:i32 maxFailedIndexes:i32 selector:meta.LabelSelector manualSelector:b
    template:core.PodTemplateSpec ttlSecondsAfterFinished:i32
    completionMode:s(v1.CompletionMode) suspend:b
    podReplacementPolicy:s(v1.PodReplacementPolicy) managedBy:s
batch.JobStatus conditions:[batch.JobCondition] startTime:t completionTime:t active:i32
    succeeded:i32 failed:i32 terminating:i32 completedIndexes:s failedIndexes:s
    uncountedTerminatedPods:batch.UncountedTerminatedPods ready:i32
arv1.APIServiceSpec service:arv1.ServiceReference group:s version:s insecureSkipTLSVerify:b
    caBundle:bytes groupPriorityMinimum:i32 versionPriority:i32
arv1.APIServiceStatus conditions:[arv1.APIServiceCondition]
arv1b1.APIServiceSpec service:arv1b1.ServiceReference group:s version:s insecureSkipTLSVerify:b
    caBundle:bytes groupPriorityMinimum:i32 versionPriority:i32
arv1b1.APIServiceStatus conditions:[arv1b1.APIServiceCondition]
asv1.HorizontalPodAutoscalerSpec scaleTargetRef:asv1.CrossVersionObjectReference minReplicas:i32
    maxReplicas:i32 targetCPUUtilizationPercentage:i32
asv1.HorizontalPodAutoscalerStatus observedGeneration:i64 lastScaleTime:t currentReplicas:i32
    desiredReplicas:i32 currentCPUUtilizationPercentage:i32
asv2.HorizontalPodAutoscalerSpec scaleTargetRef:asv2.CrossVersionObjectReference minReplicas:i32
    maxReplicas:i32 metrics:[asv2.MetricSpec] behavior:asv2.HorizontalPodAutoscalerBehavior
asv2.HorizontalPodAutoscalerStatus observedGeneration:i64 lastScaleTime:t currentReplicas:i32
    desiredReplicas:i32 currentMetrics:[asv2.MetricStatus]
    conditions:[asv2.HorizontalPodAutoscalerCondition]
meta.OwnerReference apiVersion:s kind:s name:s uid:s(types.UID) controller:b
    blockOwnerDeletion:b
meta.ManagedFieldsEntry manager:s operation:s(v1.ManagedFieldsOperationType) apiVersion:s time:t
    fieldsType:s fieldsV1:raw subresource:s
meta.LabelSelector matchLabels:{s} matchExpressions:[meta.LabelSelectorRequirement]
core.PodTemplateSpec metadata:meta.ObjectMeta spec:core.PodSpec
apps.DeploymentStrategy type:s(v1.DeploymentStrategyType)
    rollingUpdate:apps.RollingUpdateDeployment
apps.DeploymentCondition type:s(v1.DeploymentConditionType) status:s(v1.ConditionStatus)
    lastUpdateTime:t lastTransitionTime:t reason:s message:s
apps.StatefulSetUpdateStrategy type:s(v1.StatefulSetUpdateStrategyType)
    rollingUpdate:apps.RollingUpdateStatefulSetStrategy
apps.StatefulSetPersistentVolumeClaimRetentionPolicy
    whenDeleted:s(v1.PersistentVolumeClaimRetentionPolicyType)
    whenScaled:s(v1.PersistentVolumeClaimRetentionPolicyType)
apps.StatefulSetOrdinals start:i32
apps.StatefulSetCondition type:s(v1.StatefulSetConditionType) status:s(v1.ConditionStatus)
    lastTransitionTime:t reason:s message:s
apps.DaemonSetUpdateStrategy type:s(v1.DaemonSetUpdateStrategyType)
    rollingUpdate:apps.RollingUpdateDaemonSet
apps.DaemonSetCondition type:s(v1.DaemonSetConditionType) status:s(v1.ConditionStatus)
    lastTransitionTime:t reason:s message:s
apps.ReplicaSetCondition type:s(v1.ReplicaSetConditionType) status:s(v1.ConditionStatus)
    lastTransitionTime:t reason:s message:s
core.VolumeResourceRequirements limits:{q} requests:{q}
core.TypedLocalObjectReference apiGroup:s kind:s name:s
core.TypedObjectReference apiGroup:s kind:s name:s namespace:s
core.PersistentVolumeClaimCondition type:s(v1.PersistentVolumeClaimConditionType)
    status:s(v1.ConditionStatus) lastProbeTime:t lastTransitionTime:t reason:s message:s
core.ModifyVolumeStatus targetVolumeAttributesClassName:s
    status:s(v1.PersistentVolumeClaimModifyVolumeStatus)
core.ServicePort name:s protocol:s(v1.Protocol) appProtocol:s port:i32 targetPort:ios
    nodePort:i32
core.SessionAffinityConfig clientIP:core.ClientIPConfig
core.LoadBalancerStatus ingress:[core.LoadBalancerIngress]
meta.Condition type:s status:s(v1.ConditionStatus) observedGeneration:i64 lastTransitionTime:t
    reason:s message:s
core.Volume name:s ..:core.VolumeSource
core.Container name:s image:s command:[s] args:[s] workingDir:s ports:[core.ContainerPort]
    envFrom:[core.EnvFromSource] env:[core.EnvVar] resources:core.ResourceRequirements
    resizePolicy:[core.ContainerResizePolicy] restartPolicy:s(v1.ContainerRestartPolicy)
    restartPolicyRules:[core.ContainerRestartRule] volumeMounts:[core.VolumeMount]
    volumeDevices:[core.VolumeDevice] livenessProbe:core.Probe readinessProbe:core.Probe
    startupProbe:core.Probe lifecycle:core.Lifecycle terminationMessagePath:s
    terminationMessagePolicy:s(v1.TerminationMessagePolicy) imagePullPolicy:s(v1.PullPolicy)
    securityContext:core.SecurityContext stdin:b stdinOnce:b tty:b
core.EphemeralContainer ..:core.EphemeralContainerCommon targetContainerName:s
core.PodSecurityContext seLinuxOptions:core.SELinuxOptions
    windowsOptions:core.WindowsSecurityContextOptions runAsUser:i64 runAsGroup:i64
    runAsNonRoot:b supplementalGroups:[i64]
    supplementalGroupsPolicy:s(v1.SupplementalGroupsPolicy) fsGroup:i64 sysctls:[core.Sysctl]
    fsGroupChangePolicy:s(v1.PodFSGroupChangePolicy) seccompProfile:core.SeccompProfile
    appArmorProfile:core.AppArmorProfile seLinuxChangePolicy:s(v1.PodSELinuxChangePolicy)
core.LocalObjectReference name:s
core.Affinity nodeAffinity:core.NodeAffinity podAffinity:core.PodAffinity
    podAntiAffinity:core.PodAntiAffinity
core.Toleration key:s operator:s(v1.TolerationOperator) value:s effect:s(v1.TaintEffect)
    tolerationSeconds:i64
core.HostAlias ip:s hostnames:[s]
core.PodDNSConfig nameservers:[s] searches:[s] options:[core.PodDNSConfigOption]
core.PodReadinessGate conditionType:s(v1.PodConditionType)
core.TopologySpreadConstraint maxSkew:i32 topologyKey:s
    whenUnsatisfiable:s(v1.UnsatisfiableConstraintAction) labelSelector:meta.LabelSelector
    minDomains:i32 nodeAffinityPolicy:s(v1.NodeInclusionPolicy)
    nodeTaintsPolicy:s(v1.NodeInclusionPolicy) matchLabelKeys:[s]
core.PodOS name:s(v1.OSName)
core.PodSchedulingGate name:s
core.PodResourceClaim name:s resourceClaimName:s resourceClaimTemplateName:s
core.ResourceRequirements limits:{q} requests:{q} claims:[core.ResourceClaim]
core.PodSchedulingGroup podGroupName:s
core.PodCondition type:s(v1.PodConditionType) observedGeneration:i64
    status:s(v1.ConditionStatus) lastProbeTime:t lastTransitionTime:t reason:s message:s
core.HostIP ip:s
core.PodIP ip:s
core.ContainerStatus name:s state:core.ContainerState lastState:core.ContainerState ready:b
    restartCount:i32 image:s imageID:s containerID:s started:b allocatedResources:{q}
    resources:core.ResourceRequirements volumeMounts:[core.VolumeMountStatus]
    user:core.ContainerUser allocatedResourcesStatus:[core.ResourceStatus]
    stopSignal:s(v1.Signal)
core.PodResourceClaimStatus name:s resourceClaimName:s
core.PodExtendedResourceClaimStatus requestMappings:[core.ContainerExtendedResourceRequest]
    resourceClaimName:s
core.NodeAllocatableResourceClaimStatus resourceClaimName:s containers:[s] resources:{q}
batch.PodFailurePolicy rules:[batch.PodFailurePolicyRule]
batch.SuccessPolicy rules:[batch.SuccessPolicyRule]
batch.JobCondition type:s(v1.JobConditionType) status:s(v1.ConditionStatus) lastProbeTime:t
    lastTransitionTime:t reason:s message:s
batch.UncountedTerminatedPods succeeded:[s(types.UID)] failed:[s(types.UID)]
arv1.ServiceReference namespace:s name:s port:i32
arv1.APIServiceCondition type:s(v1.APIServiceConditionType) status:s(v1.ConditionStatus)
    lastTransitionTime:t reason:s message:s
arv1b1.ServiceReference namespace:s name:s port:i32
arv1b1.APIServiceCondition type:s(v1beta1.APIServiceConditionType)
    status:s(v1beta1.ConditionStatus) lastTransitionTime:t reason:s message:s
asv1.CrossVersionObjectReference kind:s name:s apiVersion:s
asv2.CrossVersionObjectReference kind:s name:s apiVersion:s
asv2.MetricSpec type:s(v2.MetricSourceType) object:asv2.ObjectMetricSource
    pods:asv2.PodsMetricSource resource:asv2.ResourceMetricSource
    containerResource:asv2.ContainerResourceMetricSource external:asv2.ExternalMetricSource
asv2.HorizontalPodAutoscalerBehavior scaleUp:asv2.HPAScalingRules scaleDown:asv2.HPAScalingRules
asv2.MetricStatus type:s(v2.MetricSourceType) object:asv2.ObjectMetricStatus
    pods:asv2.PodsMetricStatus resource:asv2.ResourceMetricStatus
    containerResource:asv2.ContainerResourceMetricStatus external:asv2.ExternalMetricStatus
asv2.HorizontalPodAutoscalerCondition type:s(v2.HorizontalPodAutoscalerConditionType)
    status:s(v1.ConditionStatus) lastTransitionTime:t reason:s message:s
meta.LabelSelectorRequirement key:s operator:s(v1.LabelSelectorOperator) values:[s]
apps.RollingUpdateDeployment maxUnavailable:ios maxSurge:ios
apps.RollingUpdateStatefulSetStrategy partition:i32 maxUnavailable:ios
apps.RollingUpdateDaemonSet maxUnavailable:ios maxSurge:ios
core.ClientIPConfig timeoutSeconds:i32
core.LoadBalancerIngress ip:s hostname:s ipMode:s(v1.LoadBalancerIPMode) ports:[core.PortStatus]
core.VolumeSource hostPath:core.HostPathVolumeSource emptyDir:core.EmptyDirVolumeSource
    gcePersistentDisk:core.GCEPersistentDiskVolumeSource
    awsElasticBlockStore:core.AWSElasticBlockStoreVolumeSource gitRepo:core.GitRepoVolumeSource
    secret:core.SecretVolumeSource nfs:core.NFSVolumeSource iscsi:core.ISCSIVolumeSource
    glusterfs:core.GlusterfsVolumeSource
    persistentVolumeClaim:core.PersistentVolumeClaimVolumeSource rbd:core.RBDVolumeSource
    flexVolume:core.FlexVolumeSource cinder:core.CinderVolumeSource
    cephfs:core.CephFSVolumeSource flocker:core.FlockerVolumeSource
    downwardAPI:core.DownwardAPIVolumeSource fc:core.FCVolumeSource
    azureFile:core.AzureFileVolumeSource configMap:core.ConfigMapVolumeSource
    vsphereVolume:core.VsphereVirtualDiskVolumeSource quobyte:core.QuobyteVolumeSource
    azureDisk:core.AzureDiskVolumeSource
    photonPersistentDisk:core.PhotonPersistentDiskVolumeSource
    projected:core.ProjectedVolumeSource portworxVolume:core.PortworxVolumeSource
    scaleIO:core.ScaleIOVolumeSource storageos:core.StorageOSVolumeSource
    csi:core.CSIVolumeSource ephemeral:core.EphemeralVolumeSource image:core.ImageVolumeSource
core.ContainerPort name:s hostPort:i32 containerPort:i32 protocol:s(v1.Protocol) hostIP:s
core.EnvFromSource prefix:s configMapRef:core.ConfigMapEnvSource secretRef:core.SecretEnvSource
core.EnvVar name:s value:s valueFrom:core.EnvVarSource
core.ContainerResizePolicy resourceName:s(v1.ResourceName)
    restartPolicy:s(v1.ResourceResizeRestartPolicy)
core.ContainerRestartRule action:s(v1.ContainerRestartRuleAction)
    exitCodes:core.ContainerRestartRuleOnExitCodes
core.VolumeMount name:s readOnly:b recursiveReadOnly:s(v1.RecursiveReadOnlyMode) mountPath:s
    subPath:s mountPropagation:s(v1.MountPropagationMode) subPathExpr:s
core.VolumeDevice name:s devicePath:s
core.Probe ..:core.ProbeHandler initialDelaySeconds:i32 timeoutSeconds:i32 periodSeconds:i32
    successThreshold:i32 failureThreshold:i32 terminationGracePeriodSeconds:i64
core.Lifecycle postStart:core.LifecycleHandler preStop:core.LifecycleHandler
    stopSignal:s(v1.Signal)
core.SecurityContext capabilities:core.Capabilities privileged:b
    seLinuxOptions:core.SELinuxOptions windowsOptions:core.WindowsSecurityContextOptions
    runAsUser:i64 runAsGroup:i64 runAsNonRoot:b readOnlyRootFilesystem:b
    allowPrivilegeEscalation:b procMount:s(v1.ProcMountType) seccompProfile:core.SeccompProfile
    appArmorProfile:core.AppArmorProfile
core.EphemeralContainerCommon name:s image:s command:[s] args:[s] workingDir:s
    ports:[core.ContainerPort] envFrom:[core.EnvFromSource] env:[core.EnvVar]
    resources:core.ResourceRequirements resizePolicy:[core.ContainerResizePolicy]
    restartPolicy:s(v1.ContainerRestartPolicy) restartPolicyRules:[core.ContainerRestartRule]
    volumeMounts:[core.VolumeMount] volumeDevices:[core.VolumeDevice] livenessProbe:core.Probe
    readinessProbe:core.Probe startupProbe:core.Probe lifecycle:core.Lifecycle
    terminationMessagePath:s terminationMessagePolicy:s(v1.TerminationMessagePolicy)
    imagePullPolicy:s(v1.PullPolicy) securityContext:core.SecurityContext stdin:b stdinOnce:b
    tty:b
core.SELinuxOptions user:s role:s type:s level:s
core.WindowsSecurityContextOptions gmsaCredentialSpecName:s gmsaCredentialSpec:s runAsUserName:s
    hostProcess:b
core.Sysctl name:s value:s
core.SeccompProfile type:s(v1.SeccompProfileType) localhostProfile:s
core.AppArmorProfile type:s(v1.AppArmorProfileType) localhostProfile:s
core.NodeAffinity requiredDuringSchedulingIgnoredDuringExecution:core.NodeSelector
    preferredDuringSchedulingIgnoredDuringExecution:[core.PreferredSchedulingTerm]
core.PodAffinity requiredDuringSchedulingIgnoredDuringExecution:[core.PodAffinityTerm]
    preferredDuringSchedulingIgnoredDuringExecution:[core.WeightedPodAffinityTerm]
core.PodAntiAffinity requiredDuringSchedulingIgnoredDuringExecution:[core.PodAffinityTerm]
    preferredDuringSchedulingIgnoredDuringExecution:[core.WeightedPodAffinityTerm]
core.PodDNSConfigOption name:s value:s
core.ResourceClaim name:s request:s
core.ContainerState waiting:core.ContainerStateWaiting running:core.ContainerStateRunning
    terminated:core.ContainerStateTerminated
core.VolumeMountStatus name:s mountPath:s readOnly:b
    recursiveReadOnly:s(v1.RecursiveReadOnlyMode) volumeStatus:core.VolumeStatus
core.ContainerUser linux:core.LinuxContainerUser
core.ResourceStatus name:s(v1.ResourceName) resources:[core.ResourceHealth]
core.ContainerExtendedResourceRequest containerName:s resourceName:s requestName:s
batch.PodFailurePolicyRule action:s(v1.PodFailurePolicyAction)
    onExitCodes:batch.PodFailurePolicyOnExitCodesRequirement
    onPodConditions:[batch.PodFailurePolicyOnPodConditionsPattern]
batch.SuccessPolicyRule succeededIndexes:s succeededCount:i32
asv2.ObjectMetricSource describedObject:asv2.CrossVersionObjectReference
    target:asv2.MetricTarget metric:asv2.MetricIdentifier
asv2.PodsMetricSource metric:asv2.MetricIdentifier target:asv2.MetricTarget
asv2.ResourceMetricSource name:s(v1.ResourceName) target:asv2.MetricTarget
asv2.ContainerResourceMetricSource name:s(v1.ResourceName) target:asv2.MetricTarget container:s
asv2.ExternalMetricSource metric:asv2.MetricIdentifier target:asv2.MetricTarget
asv2.HPAScalingRules stabilizationWindowSeconds:i32 selectPolicy:s(v2.ScalingPolicySelect)
    policies:[asv2.HPAScalingPolicy] tolerance:q
asv2.ObjectMetricStatus metric:asv2.MetricIdentifier current:asv2.MetricValueStatus
    describedObject:asv2.CrossVersionObjectReference
asv2.PodsMetricStatus metric:asv2.MetricIdentifier current:asv2.MetricValueStatus
asv2.ResourceMetricStatus name:s(v1.ResourceName) current:asv2.MetricValueStatus
asv2.ContainerResourceMetricStatus name:s(v1.ResourceName) current:asv2.MetricValueStatus
    container:s
asv2.ExternalMetricStatus metric:asv2.MetricIdentifier current:asv2.MetricValueStatus
core.PortStatus port:i32 protocol:s(v1.Protocol) error:s
core.HostPathVolumeSource path:s type:s(v1.HostPathType)
core.EmptyDirVolumeSource medium:s(v1.StorageMedium) sizeLimit:q
core.GCEPersistentDiskVolumeSource pdName:s fsType:s partition:i32 readOnly:b
core.AWSElasticBlockStoreVolumeSource volumeID:s fsType:s partition:i32 readOnly:b
core.GitRepoVolumeSource repository:s revision:s directory:s
core.SecretVolumeSource secretName:s items:[core.KeyToPath] defaultMode:i32 optional:b
core.NFSVolumeSource server:s path:s readOnly:b
core.ISCSIVolumeSource targetPortal:s iqn:s lun:i32 iscsiInterface:s fsType:s readOnly:b
    portals:[s] chapAuthDiscovery:b chapAuthSession:b secretRef:core.LocalObjectReference
    initiatorName:s
core.GlusterfsVolumeSource endpoints:s path:s readOnly:b
core.PersistentVolumeClaimVolumeSource claimName:s readOnly:b
core.RBDVolumeSource monitors:[s] image:s fsType:s pool:s user:s keyring:s
    secretRef:core.LocalObjectReference readOnly:b
core.FlexVolumeSource driver:s fsType:s secretRef:core.LocalObjectReference readOnly:b
    options:{s}
core.CinderVolumeSource volumeID:s fsType:s readOnly:b secretRef:core.LocalObjectReference
core.CephFSVolumeSource monitors:[s] path:s user:s secretFile:s
    secretRef:core.LocalObjectReference readOnly:b
core.FlockerVolumeSource datasetName:s datasetUUID:s
core.DownwardAPIVolumeSource items:[core.DownwardAPIVolumeFile] defaultMode:i32
core.FCVolumeSource targetWWNs:[s] lun:i32 fsType:s readOnly:b wwids:[s]
core.AzureFileVolumeSource secretName:s shareName:s readOnly:b
core.ConfigMapVolumeSource ..:core.LocalObjectReference items:[core.KeyToPath] defaultMode:i32
    optional:b
core.VsphereVirtualDiskVolumeSource volumePath:s fsType:s storagePolicyName:s storagePolicyID:s
core.QuobyteVolumeSource registry:s volume:s readOnly:b user:s group:s tenant:s
core.AzureDiskVolumeSource diskName:s diskURI:s cachingMode:s(v1.AzureDataDiskCachingMode)
    fsType:s readOnly:b kind:s(v1.AzureDataDiskKind)
core.PhotonPersistentDiskVolumeSource pdID:s fsType:s
core.ProjectedVolumeSource sources:[core.VolumeProjection] defaultMode:i32
core.PortworxVolumeSource volumeID:s fsType:s readOnly:b
core.ScaleIOVolumeSource gateway:s system:s secretRef:core.LocalObjectReference sslEnabled:b
    protectionDomain:s storagePool:s storageMode:s volumeName:s fsType:s readOnly:b
core.StorageOSVolumeSource volumeName:s volumeNamespace:s fsType:s readOnly:b
    secretRef:core.LocalObjectReference
core.CSIVolumeSource driver:s readOnly:b fsType:s volumeAttributes:{s}
    nodePublishSecretRef:core.LocalObjectReference
core.EphemeralVolumeSource volumeClaimTemplate:core.PersistentVolumeClaimTemplate
core.ImageVolumeSource reference:s pullPolicy:s(v1.PullPolicy)
core.ConfigMapEnvSource ..:core.LocalObjectReference optional:b
core.SecretEnvSource ..:core.LocalObjectReference optional:b
core.EnvVarSource fieldRef:core.ObjectFieldSelector resourceFieldRef:core.ResourceFieldSelector
    configMapKeyRef:core.ConfigMapKeySelector secretKeyRef:core.SecretKeySelector
    fileKeyRef:core.FileKeySelector
core.ContainerRestartRuleOnExitCodes operator:s(v1.ContainerRestartRuleOnExitCodesOperator)
    values:[i32]
core.ProbeHandler exec:core.ExecAction httpGet:core.HTTPGetAction tcpSocket:core.TCPSocketAction
    grpc:core.GRPCAction
core.LifecycleHandler exec:core.ExecAction httpGet:core.HTTPGetAction
    tcpSocket:core.TCPSocketAction sleep:core.SleepAction
core.Capabilities add:[s(v1.Capability)] drop:[s(v1.Capability)]
core.NodeSelector nodeSelectorTerms:[core.NodeSelectorTerm]
core.PreferredSchedulingTerm weight:i32 preference:core.NodeSelectorTerm
core.PodAffinityTerm labelSelector:meta.LabelSelector namespaces:[s] topologyKey:s
    namespaceSelector:meta.LabelSelector matchLabelKeys:[s] mismatchLabelKeys:[s]
core.WeightedPodAffinityTerm weight:i32 podAffinityTerm:core.PodAffinityTerm
core.ContainerStateWaiting reason:s message:s
core.ContainerStateRunning startedAt:t
core.ContainerStateTerminated exitCode:i32 signal:i32 reason:s message:s startedAt:t
    finishedAt:t containerID:s
core.VolumeStatus image:core.ImageVolumeStatus
core.LinuxContainerUser uid:i64 gid:i64 supplementalGroups:[i64]
core.ResourceHealth resourceID:s(v1.ResourceID) health:s(v1.ResourceHealthStatus) message:s
batch.PodFailurePolicyOnExitCodesRequirement containerName:s
    operator:s(v1.PodFailurePolicyOnExitCodesOperator) values:[i32]
batch.PodFailurePolicyOnPodConditionsPattern type:s(v1.PodConditionType)
    status:s(v1.ConditionStatus)
asv2.MetricTarget type:s(v2.MetricTargetType) value:q averageValue:q averageUtilization:i32
asv2.MetricIdentifier name:s selector:meta.LabelSelector
asv2.HPAScalingPolicy type:s(v2.HPAScalingPolicyType) value:i32 periodSeconds:i32
asv2.MetricValueStatus value:q averageValue:q averageUtilization:i32
core.KeyToPath key:s path:s mode:i32
core.DownwardAPIVolumeFile path:s fieldRef:core.ObjectFieldSelector
    resourceFieldRef:core.ResourceFieldSelector mode:i32
core.VolumeProjection secret:core.SecretProjection downwardAPI:core.DownwardAPIProjection
    configMap:core.ConfigMapProjection serviceAccountToken:core.ServiceAccountTokenProjection
    clusterTrustBundle:core.ClusterTrustBundleProjection
    podCertificate:core.PodCertificateProjection
core.PersistentVolumeClaimTemplate metadata:meta.ObjectMeta spec:core.PersistentVolumeClaimSpec
core.ObjectFieldSelector apiVersion:s fieldPath:s
core.ResourceFieldSelector containerName:s resource:s divisor:q
core.ConfigMapKeySelector ..:core.LocalObjectReference key:s optional:b
core.SecretKeySelector ..:core.LocalObjectReference key:s optional:b
core.FileKeySelector volumeName:s path:s key:s optional:b
core.ExecAction command:[s]
core.HTTPGetAction path:s port:ios host:s scheme:s(v1.URIScheme) httpHeaders:[core.HTTPHeader]
core.TCPSocketAction port:ios host:s
core.GRPCAction port:i32 service:s
core.SleepAction seconds:i64
core.NodeSelectorTerm matchExpressions:[core.NodeSelectorRequirement]
    matchFields:[core.NodeSelectorRequirement]
core.ImageVolumeStatus imageRef:s
core.SecretProjection ..:core.LocalObjectReference items:[core.KeyToPath] optional:b
core.DownwardAPIProjection items:[core.DownwardAPIVolumeFile]
core.ConfigMapProjection ..:core.LocalObjectReference items:[core.KeyToPath] optional:b
core.ServiceAccountTokenProjection audience:s expirationSeconds:i64 path:s
core.ClusterTrustBundleProjection name:s signerName:s labelSelector:meta.LabelSelector
    optional:b path:s
core.PodCertificateProjection signerName:s keyType:s maxExpirationSeconds:i32
    credentialBundlePath:s keyPath:s certificateChainPath:s userAnnotations:{s}
core.HTTPHeader name:s value:s
core.NodeSelectorRequirement key:s operator:s(v1.NodeSelectorOperator) values:[s]
"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(ty: &Ty, out: &mut Vec<&'static str>) {
        match ty {
            Ty::Struct(n) => out.push(n),
            Ty::Slice(t) | Ty::Map(t) => refs(t, out),
            _ => {}
        }
    }

    #[test]
    fn table_is_closed() {
        let s = schema();
        let mut names = Vec::new();
        for fields in s.values() {
            for f in fields {
                refs(&f.ty, &mut names);
            }
        }
        for n in names {
            assert!(s.contains_key(n), "{n} referenced but not defined");
        }
        // Spot checks against k8s.io/api v0.36.1 declarations.
        let d = &s["apps.DeploymentSpec"];
        assert_eq!(
            d[0],
            Field {
                name: "replicas",
                ty: Ty::Scalar(Scalar::I32, "int32")
            }
        );
        let p = &s["core.PodStatus"];
        assert!(p.contains(&Field {
            name: "phase",
            ty: Ty::Scalar(Scalar::Str, "v1.PodPhase")
        }));
    }
}
