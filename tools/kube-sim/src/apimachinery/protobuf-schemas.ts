// GENERATED once from the field numbers in kubernetes/api's generated.proto files (core, apps, batch,
// networking, policy, rbac, scheduling, authorization, authentication, coordination, storage, events v1 and
// autoscaling v2): `message: "field=number:type"` where type is s(tring), i(nt), b(ool), y (bytes), d/f
// (double/float), map:<value type>, a message name, one of ObjectMeta, LabelSelector, time, duration, intstr,
// quantity, raw, or any (not described here); a trailing * marks a repeated field.
export const MESSAGES: Record<string, string> = {
  AWSElasticBlockStoreVolumeSource: 'volumeID=1:s fsType=2:s partition=3:i readOnly=4:b',
  Affinity: 'nodeAffinity=1:NodeAffinity podAffinity=2:PodAffinity podAntiAffinity=3:PodAntiAffinity',
  AggregationRule: 'clusterRoleSelectors=1:LabelSelector*',
  AppArmorProfile: 'type=1:s localhostProfile=2:s',
  AttachedVolume: 'name=1:s devicePath=2:s',
  AttestationValue: 'items=1:s*',
  AzureDiskVolumeSource: 'diskName=1:s diskURI=2:s cachingMode=3:s fsType=4:s readOnly=5:b kind=6:s',
  AzureFileVolumeSource: 'secretName=1:s shareName=2:s readOnly=3:b',
  Binding: 'metadata=1:ObjectMeta target=2:ObjectReference',
  BoundObjectReference: 'kind=1:s apiVersion=2:s name=3:s uID=4:s',
  CSIVolumeSource:
    'driver=1:s readOnly=2:b fsType=3:s volumeAttributes=4:map:s nodePublishSecretRef=5:LocalObjectReference',
  Capabilities: 'add=1:s* drop=2:s*',
  CephFSVolumeSource:
    'monitors=1:s* path=2:s user=3:s secretFile=4:s secretRef=5:LocalObjectReference readOnly=6:b',
  CinderVolumeSource: 'volumeID=1:s fsType=2:s readOnly=3:b secretRef=4:LocalObjectReference',
  ClientIPConfig: 'timeoutSeconds=1:i',
  ClusterRole: 'metadata=1:ObjectMeta rules=2:PolicyRule* aggregationRule=3:AggregationRule',
  ClusterRoleBinding: 'metadata=1:ObjectMeta subjects=2:Subject* roleRef=3:RoleRef',
  ClusterTrustBundleProjection:
    'name=1:s signerName=2:s labelSelector=3:LabelSelector optional=5:b path=4:s user=6:i',
  ConfigMap: 'metadata=1:ObjectMeta immutable=4:b data=2:map:s binaryData=3:map:y',
  ConfigMapEnvSource: 'localObjectReference=1:LocalObjectReference optional=2:b',
  ConfigMapKeySelector: 'localObjectReference=1:LocalObjectReference key=2:s optional=3:b',
  ConfigMapNodeConfigSource: 'namespace=1:s name=2:s uid=3:s resourceVersion=4:s kubeletConfigKey=5:s',
  ConfigMapProjection: 'localObjectReference=1:LocalObjectReference items=2:KeyToPath* optional=4:b',
  ConfigMapVolumeSource:
    'localObjectReference=1:LocalObjectReference items=2:KeyToPath* defaultMode=3:i optional=4:b defaultUser=5:i',
  Container:
    'name=1:s image=2:s command=3:s* args=4:s* workingDir=5:s ports=6:ContainerPort* envFrom=19:EnvFromSource* env=7:EnvVar* resources=8:ResourceRequirements resizePolicy=23:ContainerResizePolicy* restartPolicy=24:s restartPolicyRules=25:ContainerRestartRule* volumeMounts=9:VolumeMount* volumeDevices=21:VolumeDevice* livenessProbe=10:Probe readinessProbe=11:Probe startupProbe=22:Probe lifecycle=12:Lifecycle terminationMessagePath=13:s terminationMessagePolicy=20:s imagePullPolicy=14:s securityContext=15:SecurityContext stdin=16:b stdinOnce=17:b tty=18:b',
  ContainerExtendedResourceRequest: 'containerName=1:s resourceName=2:s requestName=3:s',
  ContainerImage: 'names=1:s* sizeBytes=2:i',
  ContainerPort: 'name=1:s hostPort=2:i containerPort=3:i protocol=4:s hostIP=5:s',
  ContainerResizePolicy: 'resourceName=1:s restartPolicy=2:s',
  ContainerResourceMetricSource: 'name=1:s target=2:MetricTarget container=3:s',
  ContainerResourceMetricStatus: 'name=1:s current=2:MetricValueStatus container=3:s',
  ContainerRestartRule: 'action=1:s exitCodes=2:ContainerRestartRuleOnExitCodes',
  ContainerRestartRuleOnExitCodes: 'operator=1:s values=2:i*',
  ContainerState:
    'waiting=1:ContainerStateWaiting running=2:ContainerStateRunning terminated=3:ContainerStateTerminated',
  ContainerStateRunning: 'startedAt=1:time',
  ContainerStateTerminated:
    'exitCode=1:i signal=2:i reason=3:s message=4:s startedAt=5:time finishedAt=6:time containerID=7:s',
  ContainerStateWaiting: 'reason=1:s message=2:s',
  ContainerStatus:
    'name=1:s state=2:ContainerState lastState=3:ContainerState ready=4:b restartCount=5:i image=6:s imageID=7:s containerID=8:s started=9:b allocatedResources=10:map:quantity resources=11:ResourceRequirements volumeMounts=12:VolumeMountStatus* user=13:ContainerUser allocatedResourcesStatus=14:ResourceStatus* stopSignal=15:s',
  ContainerUser: 'linux=1:LinuxContainerUser',
  ControllerRevision: 'metadata=1:ObjectMeta data=2:raw revision=3:i',
  CronJob: 'metadata=1:ObjectMeta spec=2:CronJobSpec status=3:CronJobStatus',
  CronJobSpec:
    'schedule=1:s timeZone=8:s startingDeadlineSeconds=2:i concurrencyPolicy=3:s suspend=4:b jobTemplate=5:JobTemplateSpec successfulJobsHistoryLimit=6:i failedJobsHistoryLimit=7:i',
  CronJobStatus: 'active=1:ObjectReference* lastScheduleTime=4:time lastSuccessfulTime=5:time',
  CrossVersionObjectReference: 'kind=1:s name=2:s apiVersion=3:s',
  DaemonEndpoint: 'Port=1:i',
  DaemonSet: 'metadata=1:ObjectMeta spec=2:DaemonSetSpec status=3:DaemonSetStatus',
  DaemonSetCondition: 'type=1:s status=2:s lastTransitionTime=3:time reason=4:s message=5:s',
  DaemonSetSpec:
    'selector=1:LabelSelector template=2:PodTemplateSpec updateStrategy=3:DaemonSetUpdateStrategy minReadySeconds=4:i revisionHistoryLimit=6:i',
  DaemonSetStatus:
    'currentNumberScheduled=1:i numberMisscheduled=2:i desiredNumberScheduled=3:i numberReady=4:i observedGeneration=5:i updatedNumberScheduled=6:i numberAvailable=7:i numberUnavailable=8:i collisionCount=9:i conditions=10:DaemonSetCondition*',
  DaemonSetUpdateStrategy: 'type=1:s rollingUpdate=2:RollingUpdateDaemonSet',
  Deployment: 'metadata=1:ObjectMeta spec=2:DeploymentSpec status=3:DeploymentStatus',
  DeploymentCondition:
    'type=1:s status=2:s lastUpdateTime=6:time lastTransitionTime=7:time reason=4:s message=5:s',
  DeploymentSpec:
    'replicas=1:i selector=2:LabelSelector template=3:PodTemplateSpec strategy=4:DeploymentStrategy minReadySeconds=5:i revisionHistoryLimit=6:i paused=7:b progressDeadlineSeconds=9:i',
  DeploymentStatus:
    'observedGeneration=1:i replicas=2:i updatedReplicas=3:i readyReplicas=7:i availableReplicas=4:i unavailableReplicas=5:i terminatingReplicas=9:i conditions=6:DeploymentCondition* collisionCount=8:i',
  DeploymentStrategy: 'type=1:s rollingUpdate=2:RollingUpdateDeployment',
  DownwardAPIProjection: 'items=1:DownwardAPIVolumeFile*',
  DownwardAPIVolumeFile:
    'path=1:s fieldRef=2:ObjectFieldSelector resourceFieldRef=3:ResourceFieldSelector mode=4:i user=5:i',
  DownwardAPIVolumeSource: 'items=1:DownwardAPIVolumeFile* defaultMode=2:i defaultUser=3:i',
  EmptyDirVolumeSource: 'medium=1:s sizeLimit=2:quantity mode=3:i',
  EndpointAddress: 'ip=1:s hostname=3:s nodeName=4:s targetRef=2:ObjectReference',
  EndpointPort: 'name=1:s port=2:i protocol=3:s appProtocol=4:s',
  EndpointSubset: 'addresses=1:EndpointAddress* notReadyAddresses=2:EndpointAddress* ports=3:EndpointPort*',
  Endpoints: 'metadata=1:ObjectMeta subsets=2:EndpointSubset*',
  EnvFromSource: 'prefix=1:s configMapRef=2:ConfigMapEnvSource secretRef=3:SecretEnvSource',
  EnvVar: 'name=1:s value=2:s valueFrom=3:EnvVarSource',
  EnvVarSource:
    'fieldRef=1:ObjectFieldSelector resourceFieldRef=2:ResourceFieldSelector configMapKeyRef=3:ConfigMapKeySelector secretKeyRef=4:SecretKeySelector fileKeyRef=5:FileKeySelector',
  EphemeralContainer: 'ephemeralContainerCommon=1:EphemeralContainerCommon targetContainerName=2:s',
  EphemeralContainerCommon:
    'name=1:s image=2:s command=3:s* args=4:s* workingDir=5:s ports=6:ContainerPort* envFrom=19:EnvFromSource* env=7:EnvVar* resources=8:ResourceRequirements resizePolicy=23:ContainerResizePolicy* restartPolicy=24:s restartPolicyRules=25:ContainerRestartRule* volumeMounts=9:VolumeMount* volumeDevices=21:VolumeDevice* livenessProbe=10:Probe readinessProbe=11:Probe startupProbe=22:Probe lifecycle=12:Lifecycle terminationMessagePath=13:s terminationMessagePolicy=20:s imagePullPolicy=14:s securityContext=15:SecurityContext stdin=16:b stdinOnce=17:b tty=18:b',
  EphemeralVolumeSource: 'volumeClaimTemplate=1:PersistentVolumeClaimTemplate',
  Event:
    'metadata=1:ObjectMeta eventTime=2:time series=3:EventSeries reportingController=4:s reportingInstance=5:s action=6:s reason=7:s regarding=8:ObjectReference related=9:ObjectReference note=10:s type=11:s deprecatedSource=12:EventSource deprecatedFirstTimestamp=13:time deprecatedLastTimestamp=14:time deprecatedCount=15:i',
  EventSeries: 'count=1:i lastObservedTime=2:time',
  EventSource: 'component=1:s host=2:s',
  Eviction: 'metadata=1:ObjectMeta deleteOptions=2:any',
  EvictionResponder: 'name=1:s priority=2:i',
  ExecAction: 'command=1:s*',
  ExternalMetricSource: 'metric=1:MetricIdentifier target=2:MetricTarget',
  ExternalMetricStatus: 'metric=1:MetricIdentifier current=2:MetricValueStatus',
  FCVolumeSource: 'targetWWNs=1:s* lun=2:i fsType=3:s readOnly=4:b wwids=5:s*',
  FieldSelectorAttributes: 'rawSelector=1:s requirements=2:any*',
  FileKeySelector: 'volumeName=1:s path=2:s key=3:s optional=4:b',
  FlexVolumeSource: 'driver=1:s fsType=2:s secretRef=3:LocalObjectReference readOnly=4:b options=5:map:s',
  FlockerVolumeSource: 'datasetName=1:s datasetUUID=2:s',
  GCEPersistentDiskVolumeSource: 'pdName=1:s fsType=2:s partition=3:i readOnly=4:b',
  GRPCAction: 'port=1:i service=2:s mode=3:s',
  GitRepoVolumeSource: 'repository=1:s revision=2:s directory=3:s',
  GlusterfsVolumeSource: 'endpoints=1:s path=2:s readOnly=3:b',
  HPAScalingPolicy: 'type=1:s value=2:i periodSeconds=3:i',
  HPAScalingRules:
    'stabilizationWindowSeconds=3:i selectPolicy=1:s policies=2:HPAScalingPolicy* tolerance=4:quantity',
  HTTPGetAction: 'path=1:s port=2:intstr host=3:s scheme=4:s httpHeaders=5:HTTPHeader* protocol=6:s',
  HTTPHeader: 'name=1:s value=2:s',
  HTTPIngressPath: 'path=1:s pathType=3:s backend=2:IngressBackend',
  HTTPIngressRuleValue: 'paths=1:HTTPIngressPath*',
  HorizontalPodAutoscaler:
    'metadata=1:ObjectMeta spec=2:HorizontalPodAutoscalerSpec status=3:HorizontalPodAutoscalerStatus',
  HorizontalPodAutoscalerBehavior: 'scaleUp=1:HPAScalingRules scaleDown=2:HPAScalingRules',
  HorizontalPodAutoscalerCondition:
    'type=1:s status=2:s lastTransitionTime=3:time reason=4:s message=5:s observedGeneration=6:i',
  HorizontalPodAutoscalerSpec:
    'scaleTargetRef=1:CrossVersionObjectReference minReplicas=2:i maxReplicas=3:i metrics=4:MetricSpec* behavior=5:HorizontalPodAutoscalerBehavior',
  HorizontalPodAutoscalerStatus:
    'observedGeneration=1:i lastScaleTime=2:time currentReplicas=3:i desiredReplicas=4:i currentMetrics=5:MetricStatus* conditions=6:HorizontalPodAutoscalerCondition*',
  HostAlias: 'ip=1:s hostnames=2:s*',
  HostIP: 'ip=1:s',
  HostPathVolumeSource: 'path=1:s type=2:s',
  IPBlock: 'cidr=1:s except=2:s*',
  ISCSIVolumeSource:
    'targetPortal=1:s iqn=2:s lun=3:i iscsiInterface=4:s fsType=5:s readOnly=6:b portals=7:s* chapAuthDiscovery=8:b chapAuthSession=11:b secretRef=10:LocalObjectReference initiatorName=12:s',
  ImageVolumeSource: 'reference=1:s pullPolicy=2:s',
  ImageVolumeStatus: 'imageRef=1:s',
  Ingress: 'metadata=1:ObjectMeta spec=2:IngressSpec status=3:IngressStatus',
  IngressBackend: 'service=4:IngressServiceBackend resource=3:TypedLocalObjectReference',
  IngressClass: 'metadata=1:ObjectMeta spec=2:IngressClassSpec',
  IngressClassParametersReference: 'aPIGroup=1:s kind=2:s name=3:s scope=4:s namespace=5:s',
  IngressClassSpec: 'controller=1:s parameters=2:IngressClassParametersReference',
  IngressLoadBalancerIngress: 'ip=1:s hostname=2:s ports=4:IngressPortStatus*',
  IngressLoadBalancerStatus: 'ingress=1:IngressLoadBalancerIngress*',
  IngressPortStatus: 'port=1:i protocol=2:s error=3:s',
  IngressRule: 'host=1:s ingressRuleValue=2:IngressRuleValue',
  IngressRuleValue: 'http=1:HTTPIngressRuleValue',
  IngressServiceBackend: 'name=1:s port=2:ServiceBackendPort',
  IngressSpec: 'ingressClassName=4:s defaultBackend=1:IngressBackend tls=2:IngressTLS* rules=3:IngressRule*',
  IngressStatus: 'loadBalancer=1:IngressLoadBalancerStatus',
  IngressTLS: 'hosts=1:s* secretName=2:s',
  Job: 'metadata=1:ObjectMeta spec=2:JobSpec status=3:JobStatus',
  JobCondition: 'type=1:s status=2:s lastProbeTime=3:time lastTransitionTime=4:time reason=5:s message=6:s',
  JobSchedulingConfiguration:
    'schedulingPolicy=1:any schedulingConstraints=2:any disruptionMode=3:any resourceClaims=4:any*',
  JobSpec:
    'parallelism=1:i completions=2:i activeDeadlineSeconds=3:i podFailurePolicy=11:PodFailurePolicy successPolicy=16:SuccessPolicy backoffLimit=7:i backoffLimitPerIndex=12:i maxFailedIndexes=13:i selector=4:LabelSelector manualSelector=5:b template=6:PodTemplateSpec ttlSecondsAfterFinished=8:i completionMode=9:s suspend=10:b podReplacementPolicy=14:s managedBy=15:s scheduling=17:JobSchedulingConfiguration',
  JobStatus:
    'conditions=1:JobCondition* startTime=2:time completionTime=3:time active=4:i succeeded=5:i failed=6:i terminating=11:i completedIndexes=7:s failedIndexes=10:s uncountedTerminatedPods=8:UncountedTerminatedPods ready=9:i',
  JobTemplateSpec: 'metadata=1:ObjectMeta spec=2:JobSpec',
  KeyToPath: 'key=1:s path=2:s mode=3:i user=4:i',
  LabelSelectorAttributes: 'rawSelector=1:s requirements=2:any*',
  Lease: 'metadata=1:ObjectMeta spec=2:LeaseSpec',
  LeaseSpec:
    'holderIdentity=1:s leaseDurationSeconds=2:i acquireTime=3:time renewTime=4:time leaseTransitions=5:i strategy=6:s preferredHolder=7:s',
  Lifecycle: 'postStart=1:LifecycleHandler preStop=2:LifecycleHandler stopSignal=3:s',
  LifecycleHandler:
    'exec=1:ExecAction httpGet=2:HTTPGetAction tcpSocket=3:TCPSocketAction sleep=4:SleepAction',
  LimitRange: 'metadata=1:ObjectMeta spec=2:LimitRangeSpec',
  LimitRangeItem:
    'type=1:s max=2:map:quantity min=3:map:quantity default=4:map:quantity defaultRequest=5:map:quantity maxLimitRequestRatio=6:map:quantity',
  LimitRangeSpec: 'limits=1:LimitRangeItem*',
  LinuxContainerUser: 'uid=1:i gid=2:i supplementalGroups=3:i*',
  LoadBalancerIngress: 'ip=1:s hostname=2:s ipMode=3:s ports=4:PortStatus*',
  LoadBalancerStatus: 'ingress=1:LoadBalancerIngress*',
  LocalObjectReference: 'name=1:s',
  MetricIdentifier: 'name=1:s selector=2:LabelSelector',
  MetricSpec:
    'type=1:s object=2:ObjectMetricSource pods=3:PodsMetricSource resource=4:ResourceMetricSource containerResource=7:ContainerResourceMetricSource external=5:ExternalMetricSource',
  MetricStatus:
    'type=1:s object=2:ObjectMetricStatus pods=3:PodsMetricStatus resource=4:ResourceMetricStatus containerResource=7:ContainerResourceMetricStatus external=5:ExternalMetricStatus',
  MetricTarget: 'type=1:s value=2:quantity averageValue=3:quantity averageUtilization=4:i',
  MetricValueStatus: 'value=1:quantity averageValue=2:quantity averageUtilization=3:i',
  ModifyVolumeStatus: 'targetVolumeAttributesClassName=1:s status=2:s',
  NFSVolumeSource: 'server=1:s path=2:s readOnly=3:b',
  Namespace: 'metadata=1:ObjectMeta spec=2:NamespaceSpec status=3:NamespaceStatus',
  NamespaceCondition: 'type=1:s status=2:s lastTransitionTime=4:time reason=5:s message=6:s',
  NamespaceSpec: 'finalizers=1:s*',
  NamespaceStatus: 'phase=1:s conditions=2:NamespaceCondition*',
  NetworkPolicy: 'metadata=1:ObjectMeta spec=2:NetworkPolicySpec',
  NetworkPolicyEgressRule: 'ports=1:NetworkPolicyPort* to=2:NetworkPolicyPeer*',
  NetworkPolicyIngressRule: 'ports=1:NetworkPolicyPort* from=2:NetworkPolicyPeer*',
  NetworkPolicyPeer: 'podSelector=1:LabelSelector namespaceSelector=2:LabelSelector ipBlock=3:IPBlock',
  NetworkPolicyPort: 'protocol=1:s port=2:intstr endPort=3:i',
  NetworkPolicySpec:
    'podSelector=1:LabelSelector ingress=2:NetworkPolicyIngressRule* egress=3:NetworkPolicyEgressRule* policyTypes=4:s*',
  Node: 'metadata=1:ObjectMeta spec=2:NodeSpec status=3:NodeStatus',
  NodeAddress: 'type=1:s address=2:s',
  NodeAffinity:
    'requiredDuringSchedulingIgnoredDuringExecution=1:NodeSelector preferredDuringSchedulingIgnoredDuringExecution=2:PreferredSchedulingTerm*',
  NodeAllocatableMappedResources: 'name=1:s quantity=2:quantity',
  NodeAllocatableOverheadResources: 'name=1:s perPod=2:quantity perContainer=3:quantity',
  NodeAllocatableResourceClaimStatus:
    'resourceClaimName=1:s containers=2:s* mapping=4:NodeAllocatableMappedResources* overhead=5:NodeAllocatableOverheadResources*',
  NodeCondition:
    'type=1:s status=2:s lastHeartbeatTime=3:time lastTransitionTime=4:time reason=5:s message=6:s',
  NodeConfigSource: 'configMap=2:ConfigMapNodeConfigSource',
  NodeConfigStatus:
    'assigned=1:NodeConfigSource active=2:NodeConfigSource lastKnownGood=3:NodeConfigSource error=4:s',
  NodeDaemonEndpoints: 'kubeletEndpoint=1:DaemonEndpoint',
  NodeFeatures: 'supplementalGroupsPolicy=1:b',
  NodePodPreemptionPolicy: 'disableResizePreemption=1:s*',
  NodeRuntimeHandler: 'name=1:s features=2:NodeRuntimeHandlerFeatures',
  NodeRuntimeHandlerFeatures: 'recursiveReadOnlyMounts=1:b userNamespaces=2:b',
  NodeSelector: 'nodeSelectorTerms=1:NodeSelectorTerm*',
  NodeSelectorRequirement: 'key=1:s operator=2:s values=3:s*',
  NodeSelectorTerm: 'matchExpressions=1:NodeSelectorRequirement* matchFields=2:NodeSelectorRequirement*',
  NodeSpec:
    'podCIDR=1:s podCIDRs=7:s* providerID=3:s unschedulable=4:b taints=5:Taint* configSource=6:NodeConfigSource externalID=2:s podPreemptionPolicy=8:NodePodPreemptionPolicy',
  NodeStatus:
    'capacity=1:map:quantity allocatable=2:map:quantity phase=3:s conditions=4:NodeCondition* addresses=5:NodeAddress* daemonEndpoints=6:NodeDaemonEndpoints nodeInfo=7:NodeSystemInfo images=8:ContainerImage* volumesInUse=9:s* volumesAttached=10:AttachedVolume* config=11:NodeConfigStatus runtimeHandlers=12:NodeRuntimeHandler* features=13:NodeFeatures declaredFeatures=14:s*',
  NodeSwapStatus: 'capacity=1:i',
  NodeSystemInfo:
    'machineID=1:s systemUUID=2:s bootID=3:s kernelVersion=4:s osImage=5:s containerRuntimeVersion=6:s kubeletVersion=7:s kubeProxyVersion=8:s operatingSystem=9:s architecture=10:s swap=11:NodeSwapStatus',
  NonResourceAttributes: 'path=1:s verb=2:s',
  ObjectFieldSelector: 'apiVersion=1:s fieldPath=2:s',
  ObjectMetricSource:
    'describedObject=1:CrossVersionObjectReference target=2:MetricTarget metric=3:MetricIdentifier',
  ObjectMetricStatus:
    'metric=1:MetricIdentifier current=2:MetricValueStatus describedObject=3:CrossVersionObjectReference',
  ObjectReference: 'kind=1:s namespace=2:s name=3:s uid=4:s apiVersion=5:s resourceVersion=6:s fieldPath=7:s',
  PersistentVolumeClaim:
    'metadata=1:ObjectMeta spec=2:PersistentVolumeClaimSpec status=3:PersistentVolumeClaimStatus',
  PersistentVolumeClaimCondition:
    'type=1:s status=2:s lastProbeTime=3:time lastTransitionTime=4:time reason=5:s message=6:s',
  PersistentVolumeClaimSpec:
    'accessModes=1:s* selector=4:LabelSelector resources=2:VolumeResourceRequirements volumeName=3:s storageClassName=5:s volumeMode=6:s dataSource=7:TypedLocalObjectReference dataSourceRef=8:TypedObjectReference volumeAttributesClassName=9:s',
  PersistentVolumeClaimStatus:
    'phase=1:s accessModes=2:s* capacity=3:map:quantity conditions=4:PersistentVolumeClaimCondition* allocatedResources=5:map:quantity allocatedResourceStatuses=7:map:s currentVolumeAttributesClassName=8:s modifyVolumeStatus=9:ModifyVolumeStatus healthStatus=10:VolumeHealthStatus',
  PersistentVolumeClaimTemplate: 'metadata=1:ObjectMeta spec=2:PersistentVolumeClaimSpec',
  PersistentVolumeClaimVolumeSource: 'claimName=1:s readOnly=2:b',
  PhotonPersistentDiskVolumeSource: 'pdID=1:s fsType=2:s',
  Pod: 'metadata=1:ObjectMeta spec=2:PodSpec status=3:PodStatus',
  PodAffinity:
    'requiredDuringSchedulingIgnoredDuringExecution=1:PodAffinityTerm* preferredDuringSchedulingIgnoredDuringExecution=2:WeightedPodAffinityTerm*',
  PodAffinityTerm:
    'labelSelector=1:LabelSelector namespaces=2:s* topologyKey=3:s namespaceSelector=4:LabelSelector matchLabelKeys=5:s* mismatchLabelKeys=6:s*',
  PodAntiAffinity:
    'requiredDuringSchedulingIgnoredDuringExecution=1:PodAffinityTerm* preferredDuringSchedulingIgnoredDuringExecution=2:WeightedPodAffinityTerm*',
  PodCertificateProjection:
    'signerName=1:s keyType=2:s maxExpirationSeconds=3:i credentialBundlePath=4:s keyPath=5:s certificateChainPath=6:s userAnnotations=7:map:s user=8:i',
  PodCondition:
    'type=1:s observedGeneration=7:i status=2:s lastProbeTime=3:time lastTransitionTime=4:time reason=5:s message=6:s',
  PodDNSConfig: 'nameservers=1:s* searches=2:s* options=3:PodDNSConfigOption*',
  PodDNSConfigOption: 'name=1:s value=2:s',
  PodDisruptionBudget:
    'metadata=1:ObjectMeta spec=2:PodDisruptionBudgetSpec status=3:PodDisruptionBudgetStatus',
  PodDisruptionBudgetSpec:
    'minAvailable=1:intstr selector=2:LabelSelector maxUnavailable=3:intstr unhealthyPodEvictionPolicy=4:s',
  PodDisruptionBudgetStatus:
    'observedGeneration=1:i disruptedPods=2:map:time disruptionsAllowed=3:i currentHealthy=4:i desiredHealthy=5:i expectedPods=6:i conditions=7:any*',
  PodExtendedResourceClaimStatus: 'requestMappings=1:ContainerExtendedResourceRequest* resourceClaimName=2:s',
  PodFailurePolicy: 'rules=1:PodFailurePolicyRule*',
  PodFailurePolicyOnExitCodesRequirement: 'containerName=1:s operator=2:s values=3:i*',
  PodFailurePolicyOnPodConditionsPattern: 'type=1:s status=2:s',
  PodFailurePolicyRule:
    'action=1:s onExitCodes=2:PodFailurePolicyOnExitCodesRequirement onPodConditions=3:PodFailurePolicyOnPodConditionsPattern*',
  PodIP: 'ip=1:s',
  PodOS: 'name=1:s',
  PodReadinessGate: 'conditionType=1:s',
  PodResourceClaim: 'name=1:s resourceClaimName=3:s resourceClaimTemplateName=4:s',
  PodResourceClaimStatus: 'name=1:s resourceClaimName=2:s',
  PodSchedulingGate: 'name=1:s',
  PodSchedulingGroup: 'podGroupName=1:s',
  PodSecurityContext:
    'seLinuxOptions=1:SELinuxOptions windowsOptions=8:WindowsSecurityContextOptions runAsUser=2:i runAsGroup=6:i runAsNonRoot=3:b supplementalGroups=4:i* supplementalGroupsPolicy=12:s fsGroup=5:i sysctls=7:Sysctl* fsGroupChangePolicy=9:s seccompProfile=10:SeccompProfile appArmorProfile=11:AppArmorProfile seLinuxChangePolicy=13:s',
  PodSpec:
    'volumes=1:Volume* initContainers=20:Container* containers=2:Container* ephemeralContainers=34:EphemeralContainer* restartPolicy=3:s terminationGracePeriodSeconds=4:i activeDeadlineSeconds=5:i dnsPolicy=6:s nodeSelector=7:map:s serviceAccountName=8:s serviceAccount=9:s automountServiceAccountToken=21:b nodeName=10:s hostNetwork=11:b hostPID=12:b hostIPC=13:b shareProcessNamespace=27:b securityContext=14:PodSecurityContext imagePullSecrets=15:LocalObjectReference* hostname=16:s subdomain=17:s affinity=18:Affinity schedulerName=19:s tolerations=22:Toleration* hostAliases=23:HostAlias* priorityClassName=24:s priority=25:i dnsConfig=26:PodDNSConfig readinessGates=28:PodReadinessGate* runtimeClassName=29:s enableServiceLinks=30:b preemptionPolicy=31:s overhead=32:map:quantity topologySpreadConstraints=33:TopologySpreadConstraint* setHostnameAsFQDN=35:b os=36:PodOS hostUsers=37:b schedulingGates=38:PodSchedulingGate* resourceClaims=39:PodResourceClaim* resources=40:ResourceRequirements hostnameOverride=41:s schedulingGroup=43:PodSchedulingGroup evictionResponders=44:EvictionResponder*',
  PodStatus:
    'observedGeneration=17:i phase=1:s conditions=2:PodCondition* message=3:s reason=4:s nominatedNodeName=11:s hostIP=5:s hostIPs=16:HostIP* podIP=6:s podIPs=12:PodIP* startTime=7:time initContainerStatuses=10:ContainerStatus* containerStatuses=8:ContainerStatus* qosClass=9:s ephemeralContainerStatuses=13:ContainerStatus* resize=14:s resourceClaimStatuses=15:PodResourceClaimStatus* extendedResourceClaimStatus=18:PodExtendedResourceClaimStatus allocatedResources=19:map:quantity resources=20:ResourceRequirements nodeAllocatableResourceClaimStatuses=21:NodeAllocatableResourceClaimStatus* volumeHealth=22:PodVolumeHealth*',
  PodTemplate: 'metadata=1:ObjectMeta template=2:PodTemplateSpec',
  PodTemplateSpec: 'metadata=1:ObjectMeta spec=2:PodSpec',
  PodVolumeHealth: 'name=1:s healthConditions=2:VolumeHealthCondition* lastTransitionTime=3:time',
  PodsMetricSource: 'metric=1:MetricIdentifier target=2:MetricTarget',
  PodsMetricStatus: 'metric=1:MetricIdentifier current=2:MetricValueStatus',
  PolicyRule: 'verbs=1:s* apiGroups=2:s* resources=3:s* resourceNames=4:s* nonResourceURLs=5:s*',
  PortStatus: 'port=1:i protocol=2:s error=3:s',
  PortworxVolumeSource: 'volumeID=1:s fsType=2:s readOnly=3:b',
  PreferredSchedulingTerm: 'weight=1:i preference=2:NodeSelectorTerm',
  PriorityClass: 'metadata=1:ObjectMeta value=2:i globalDefault=3:b description=4:s preemptionPolicy=5:s',
  Probe:
    'handler=1:ProbeHandler initialDelaySeconds=2:i timeoutSeconds=3:i periodSeconds=4:i successThreshold=5:i failureThreshold=6:i terminationGracePeriodSeconds=7:i',
  ProbeHandler: 'exec=1:ExecAction httpGet=2:HTTPGetAction tcpSocket=3:TCPSocketAction grpc=4:GRPCAction',
  ProjectedVolumeSource: 'sources=1:VolumeProjection* defaultMode=2:i defaultUser=3:i',
  QuobyteVolumeSource: 'registry=1:s volume=2:s readOnly=3:b user=4:s group=5:s tenant=6:s',
  RBDVolumeSource:
    'monitors=1:s* image=2:s fsType=3:s pool=4:s user=5:s keyring=6:s secretRef=7:LocalObjectReference readOnly=8:b',
  ReplicaSet: 'metadata=1:ObjectMeta spec=2:ReplicaSetSpec status=3:ReplicaSetStatus',
  ReplicaSetCondition: 'type=1:s status=2:s lastTransitionTime=3:time reason=4:s message=5:s',
  ReplicaSetSpec: 'replicas=1:i minReadySeconds=4:i selector=2:LabelSelector template=3:PodTemplateSpec',
  ReplicaSetStatus:
    'replicas=1:i fullyLabeledReplicas=2:i readyReplicas=4:i availableReplicas=5:i terminatingReplicas=7:i observedGeneration=3:i conditions=6:ReplicaSetCondition*',
  ResourceAttributes:
    'namespace=1:s verb=2:s group=3:s version=4:s resource=5:s subresource=6:s name=7:s fieldSelector=8:FieldSelectorAttributes labelSelector=9:LabelSelectorAttributes',
  ResourceClaim: 'name=1:s request=2:s',
  ResourceFieldSelector: 'containerName=1:s resource=2:s divisor=3:quantity',
  ResourceHealth: 'resourceID=1:s health=2:s message=6:s',
  ResourceMetricSource: 'name=1:s target=2:MetricTarget',
  ResourceMetricStatus: 'name=1:s current=2:MetricValueStatus',
  ResourceQuota: 'metadata=1:ObjectMeta spec=2:ResourceQuotaSpec status=3:ResourceQuotaStatus',
  ResourceQuotaSpec: 'hard=1:map:quantity scopes=2:s* scopeSelector=3:ScopeSelector',
  ResourceQuotaStatus: 'hard=1:map:quantity used=2:map:quantity',
  ResourceRequirements: 'limits=1:map:quantity requests=2:map:quantity claims=3:ResourceClaim*',
  ResourceStatus: 'name=1:s resources=2:ResourceHealth*',
  Role: 'metadata=1:ObjectMeta rules=2:PolicyRule*',
  RoleBinding: 'metadata=1:ObjectMeta subjects=2:Subject* roleRef=3:RoleRef',
  RoleRef: 'apiGroup=1:s kind=2:s name=3:s',
  RollingUpdateDaemonSet: 'maxUnavailable=1:intstr maxSurge=2:intstr',
  RollingUpdateDeployment: 'maxUnavailable=1:intstr maxSurge=2:intstr',
  RollingUpdateStatefulSetStrategy: 'partition=1:i maxUnavailable=2:intstr',
  SELinuxOptions: 'user=1:s role=2:s type=3:s level=4:s',
  ScaleIOVolumeSource:
    'gateway=1:s system=2:s secretRef=3:LocalObjectReference sslEnabled=4:b protectionDomain=5:s storagePool=6:s storageMode=7:s volumeName=8:s fsType=9:s readOnly=10:b',
  ScopeSelector: 'matchExpressions=1:ScopedResourceSelectorRequirement*',
  ScopedResourceSelectorRequirement: 'scopeName=1:s operator=2:s values=3:s*',
  SeccompProfile: 'type=1:s localhostProfile=2:s',
  Secret: 'metadata=1:ObjectMeta immutable=5:b data=2:map:y stringData=4:map:s type=3:s',
  SecretEnvSource: 'localObjectReference=1:LocalObjectReference optional=2:b',
  SecretKeySelector: 'localObjectReference=1:LocalObjectReference key=2:s optional=3:b',
  SecretProjection: 'localObjectReference=1:LocalObjectReference items=2:KeyToPath* optional=4:b',
  SecretVolumeSource: 'secretName=1:s items=2:KeyToPath* defaultMode=3:i optional=4:b defaultUser=5:i',
  SecurityContext:
    'capabilities=1:Capabilities privileged=2:b seLinuxOptions=3:SELinuxOptions windowsOptions=10:WindowsSecurityContextOptions runAsUser=4:i runAsGroup=8:i runAsNonRoot=5:b readOnlyRootFilesystem=6:b allowPrivilegeEscalation=7:b procMount=9:s seccompProfile=11:SeccompProfile appArmorProfile=12:AppArmorProfile',
  SelfSubjectAccessReview:
    'metadata=1:ObjectMeta spec=2:SelfSubjectAccessReviewSpec status=3:SubjectAccessReviewStatus',
  SelfSubjectAccessReviewSpec:
    'resourceAttributes=1:ResourceAttributes nonResourceAttributes=2:NonResourceAttributes',
  Service: 'metadata=1:ObjectMeta spec=2:ServiceSpec status=3:ServiceStatus',
  ServiceAccount:
    'metadata=1:ObjectMeta secrets=2:ObjectReference* imagePullSecrets=3:LocalObjectReference* automountServiceAccountToken=4:b',
  ServiceAccountTokenProjection: 'audience=1:s expirationSeconds=2:i path=3:s user=4:i',
  ServiceBackendPort: 'name=1:s number=2:i',
  ServicePort: 'name=1:s protocol=2:s appProtocol=6:s port=3:i targetPort=4:intstr nodePort=5:i',
  ServiceSpec:
    'ports=1:ServicePort* selector=2:map:s clusterIP=3:s clusterIPs=18:s* type=4:s externalIPs=5:s* sessionAffinity=7:s loadBalancerIP=8:s loadBalancerSourceRanges=9:s* externalName=10:s externalTrafficPolicy=11:s healthCheckNodePort=12:i publishNotReadyAddresses=13:b sessionAffinityConfig=14:SessionAffinityConfig ipFamilies=19:s* ipFamilyPolicy=17:s allocateLoadBalancerNodePorts=20:b loadBalancerClass=21:s internalTrafficPolicy=22:s trafficDistribution=23:s',
  ServiceStatus: 'loadBalancer=1:LoadBalancerStatus conditions=2:any*',
  SessionAffinityConfig: 'clientIP=1:ClientIPConfig',
  SleepAction: 'seconds=1:i',
  StatefulSet: 'metadata=1:ObjectMeta spec=2:StatefulSetSpec status=3:StatefulSetStatus',
  StatefulSetCondition: 'type=1:s status=2:s lastTransitionTime=3:time reason=4:s message=5:s',
  StatefulSetOrdinals: 'start=1:i',
  StatefulSetPersistentVolumeClaimRetentionPolicy: 'whenDeleted=1:s whenScaled=2:s',
  StatefulSetSpec:
    'replicas=1:i selector=2:LabelSelector template=3:PodTemplateSpec volumeClaimTemplates=4:PersistentVolumeClaim* serviceName=5:s podManagementPolicy=6:s updateStrategy=7:StatefulSetUpdateStrategy revisionHistoryLimit=8:i minReadySeconds=9:i persistentVolumeClaimRetentionPolicy=10:StatefulSetPersistentVolumeClaimRetentionPolicy ordinals=11:StatefulSetOrdinals',
  StatefulSetStatus:
    'observedGeneration=1:i replicas=2:i readyReplicas=3:i currentReplicas=4:i updatedReplicas=5:i currentRevision=6:s updateRevision=7:s collisionCount=9:i conditions=10:StatefulSetCondition* availableReplicas=11:i',
  StatefulSetUpdateStrategy: 'type=1:s rollingUpdate=2:RollingUpdateStatefulSetStrategy',
  StorageClass:
    'metadata=1:ObjectMeta provisioner=2:s parameters=3:map:s reclaimPolicy=4:s mountOptions=5:s* allowVolumeExpansion=6:b volumeBindingMode=7:s allowedTopologies=8:TopologySelectorTerm*',
  StorageOSVolumeSource:
    'volumeName=1:s volumeNamespace=2:s fsType=3:s readOnly=4:b secretRef=5:LocalObjectReference',
  Subject: 'kind=1:s apiGroup=2:s name=3:s namespace=4:s',
  SubjectAccessReviewStatus: 'allowed=1:b denied=4:b reason=2:s evaluationError=3:s',
  SuccessPolicy: 'rules=1:SuccessPolicyRule*',
  SuccessPolicyRule: 'succeededIndexes=1:s succeededCount=2:i',
  Sysctl: 'name=1:s value=2:s',
  TCPSocketAction: 'port=1:intstr host=2:s',
  Taint: 'key=1:s value=2:s effect=3:s timeAdded=4:time',
  TokenRequest: 'metadata=1:ObjectMeta spec=2:TokenRequestSpec status=3:TokenRequestStatus',
  TokenRequestSpec:
    'audiences=1:s* expirationSeconds=4:i boundObjectRef=3:BoundObjectReference attestations=5:map:AttestationValue',
  TokenRequestStatus: 'token=1:s expirationTimestamp=2:time',
  Toleration: 'key=1:s operator=2:s value=3:s effect=4:s tolerationSeconds=5:i',
  TopologySelectorLabelRequirement: 'key=1:s values=2:s*',
  TopologySelectorTerm: 'matchLabelExpressions=1:TopologySelectorLabelRequirement*',
  TopologySpreadConstraint:
    'maxSkew=1:i topologyKey=2:s whenUnsatisfiable=3:s labelSelector=4:LabelSelector minDomains=5:i nodeAffinityPolicy=6:s nodeTaintsPolicy=7:s matchLabelKeys=8:s*',
  TypedLocalObjectReference: 'apiGroup=1:s kind=2:s name=3:s',
  TypedObjectReference: 'apiGroup=1:s kind=2:s name=3:s namespace=4:s',
  UncountedTerminatedPods: 'succeeded=1:s* failed=2:s*',
  Volume: 'name=1:s volumeSource=2:VolumeSource',
  VolumeDevice: 'name=1:s devicePath=2:s',
  VolumeHealthCondition: 'status=1:s reason=2:s message=3:s',
  VolumeHealthStatus: 'healthConditions=1:VolumeHealthCondition* lastTransitionTime=2:time',
  VolumeMount:
    'name=1:s readOnly=2:b recursiveReadOnly=7:s mountPath=3:s subPath=4:s mountPropagation=5:s subPathExpr=6:s bindMountOptions=8:s*',
  VolumeMountStatus: 'name=1:s mountPath=2:s readOnly=3:b recursiveReadOnly=4:s volumeStatus=5:VolumeStatus',
  VolumeProjection:
    'secret=1:SecretProjection downwardAPI=2:DownwardAPIProjection configMap=3:ConfigMapProjection serviceAccountToken=4:ServiceAccountTokenProjection clusterTrustBundle=5:ClusterTrustBundleProjection podCertificate=6:PodCertificateProjection',
  VolumeResourceRequirements: 'limits=1:map:quantity requests=2:map:quantity',
  VolumeSource:
    'hostPath=1:HostPathVolumeSource emptyDir=2:EmptyDirVolumeSource gcePersistentDisk=3:GCEPersistentDiskVolumeSource awsElasticBlockStore=4:AWSElasticBlockStoreVolumeSource gitRepo=5:GitRepoVolumeSource secret=6:SecretVolumeSource nfs=7:NFSVolumeSource iscsi=8:ISCSIVolumeSource glusterfs=9:GlusterfsVolumeSource persistentVolumeClaim=10:PersistentVolumeClaimVolumeSource rbd=11:RBDVolumeSource flexVolume=12:FlexVolumeSource cinder=13:CinderVolumeSource cephfs=14:CephFSVolumeSource flocker=15:FlockerVolumeSource downwardAPI=16:DownwardAPIVolumeSource fc=17:FCVolumeSource azureFile=18:AzureFileVolumeSource configMap=19:ConfigMapVolumeSource vsphereVolume=20:VsphereVirtualDiskVolumeSource quobyte=21:QuobyteVolumeSource azureDisk=22:AzureDiskVolumeSource photonPersistentDisk=23:PhotonPersistentDiskVolumeSource projected=26:ProjectedVolumeSource portworxVolume=24:PortworxVolumeSource scaleIO=25:ScaleIOVolumeSource storageos=27:StorageOSVolumeSource csi=28:CSIVolumeSource ephemeral=29:EphemeralVolumeSource image=30:ImageVolumeSource',
  VolumeStatus: 'image=1:ImageVolumeStatus',
  VsphereVirtualDiskVolumeSource: 'volumePath=1:s fsType=2:s storagePolicyName=3:s storagePolicyID=4:s',
  WeightedPodAffinityTerm: 'weight=1:i podAffinityTerm=2:PodAffinityTerm',
  WindowsSecurityContextOptions:
    'gmsaCredentialSpecName=1:s gmsaCredentialSpec=2:s runAsUserName=3:s hostProcess=4:b',
  coreEvent:
    'metadata=1:ObjectMeta involvedObject=2:ObjectReference reason=3:s message=4:s source=5:EventSource firstTimestamp=6:time lastTimestamp=7:time count=8:i type=9:s eventTime=10:time series=11:coreEventSeries action=12:s related=13:ObjectReference reportingComponent=14:s reportingInstance=15:s',
  coreEventSeries: 'count=1:i lastObservedTime=2:time',
};
/** `group/Kind` (core group: `/Kind`) → its message. */
export const KINDS: Record<string, string> = {
  'apps/Deployment': 'Deployment',
  'apps/StatefulSet': 'StatefulSet',
  'apps/DaemonSet': 'DaemonSet',
  'apps/ReplicaSet': 'ReplicaSet',
  'apps/ControllerRevision': 'ControllerRevision',
  'batch/Job': 'Job',
  'batch/CronJob': 'CronJob',
  '/Service': 'Service',
  '/Pod': 'Pod',
  '/ResourceQuota': 'ResourceQuota',
  '/Namespace': 'Namespace',
  '/ConfigMap': 'ConfigMap',
  '/Secret': 'Secret',
  '/ServiceAccount': 'ServiceAccount',
  '/PodTemplate': 'PodTemplate',
  '/Endpoints': 'Endpoints',
  '/LimitRange': 'LimitRange',
  '/PersistentVolumeClaim': 'PersistentVolumeClaim',
  '/Event': 'coreEvent',
  '/Node': 'Node',
  '/Binding': 'Binding',
  'rbac.authorization.k8s.io/Role': 'Role',
  'rbac.authorization.k8s.io/RoleBinding': 'RoleBinding',
  'rbac.authorization.k8s.io/ClusterRole': 'ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding': 'ClusterRoleBinding',
  'policy/PodDisruptionBudget': 'PodDisruptionBudget',
  'policy/Eviction': 'Eviction',
  'networking.k8s.io/Ingress': 'Ingress',
  'networking.k8s.io/NetworkPolicy': 'NetworkPolicy',
  'networking.k8s.io/IngressClass': 'IngressClass',
  'scheduling.k8s.io/PriorityClass': 'PriorityClass',
  'authorization.k8s.io/SelfSubjectAccessReview': 'SelfSubjectAccessReview',
  'authentication.k8s.io/TokenRequest': 'TokenRequest',
  'autoscaling/HorizontalPodAutoscaler': 'HorizontalPodAutoscaler',
  'coordination.k8s.io/Lease': 'Lease',
  'storage.k8s.io/StorageClass': 'StorageClass',
  'events.k8s.io/Event': 'Event',
};
