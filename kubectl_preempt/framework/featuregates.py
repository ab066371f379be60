"""Every feature gate kube-scheduler knows at each imitated release: its default, its stage, whether
it is locked to its default. Read off each release's gate lists (pkg/features/kube_features.go with
the generic apiserver's, client-go's, component-base logs' and zpages' gates, each at the release's
emulation version: the last VersionedSpecs entry not newer than it), the lists --feature-gates is
checked against (component-base/featuregate feature_gate.go Set / SetFromMap).

Each release's table is one string of NAME:STATE entries; STATE is the stage (A alpha, B beta, G GA,
D deprecated, P pre-alpha: not available yet at that release), the default (1 on, 0 off), then L
when the gate is locked to its default.
"""
from __future__ import annotations

from typing import NamedTuple

from ..version import KUBERNETES_VERSIONS


class GateSpec(NamedTuple):
    default: bool
    stage: str        # "A", "B", "G", "D" or "P"
    locked: bool


_TABLES: dict[str, str] = {
    "v1.30.1": (
        "APIListChunking:G1L APIPriorityAndFairness:G1L APIResponseCompression:B1 APIServerIdentity:B1 "
        "APIServerTracing:B1 APIServingWithRoutine:B1 AdmissionWebhookMatchConditions:G1L "
        "AggregatedDiscoveryEndpoint:G1L AllowServiceLBStatusOnNonLB:D0 AnyVolumeDataSource:B1 AppArmor:B1 "
        "AppArmorFields:B1 CPUManager:G1L CPUManagerPolicyAlphaOptions:A0 CPUManagerPolicyBetaOptions:B1 "
        "CPUManagerPolicyOptions:B1 CRDValidationRatcheting:B1 CSIMigrationPortworx:B0 CSIMigrationRBD:D0 "
        "CSINodeExpandSecret:G1L CSIVolumeHealth:A0 CloudControllerManagerWebhook:A0 CloudDualStackNodeIPs:G1L "
        "ClusterTrustBundle:A0 ClusterTrustBundleProjection:A0 ConsistentHTTPGetHandlers:G1L "
        "ConsistentListFromCache:A0 ContainerCheckpoint:B1 ContextualLogging:B1 CronJobsScheduledAnnotation:B1 "
        "CrossNamespaceVolumeDataSource:A0 CustomCPUCFSQuotaPeriod:A0 CustomResourceFieldSelectors:A0 "
        "CustomResourceValidationExpressions:G1L DefaultHostNetworkHostPortsInPodTemplates:D0 "
        "DevicePluginCDIDevices:B1 DisableCloudProviders:B1 DisableKubeletCloudCredentialProviders:B1 "
        "DisableNodeKubeProxyVersion:A0 DynamicResourceAllocation:A0 EfficientWatchResumption:G1L "
        "ElasticIndexedJob:B1 EventedPLEG:A0 ExecProbeTimeout:G1 GracefulNodeShutdown:B1 "
        "GracefulNodeShutdownBasedOnPodPriority:B1 HPAContainerMetrics:G1L HPAScaleToZero:A0 "
        "HonorPVReclaimPolicy:A0 ImageMaximumGCAge:B1 InPlacePodVerticalScaling:A0 InTreePluginAWSUnregister:A0 "
        "InTreePluginAzureDiskUnregister:A0 InTreePluginAzureFileUnregister:A0 InTreePluginGCEUnregister:A0 "
        "InTreePluginOpenStackUnregister:A0 InTreePluginPortworxUnregister:A0 InTreePluginRBDUnregister:D0 "
        "InTreePluginvSphereUnregister:A0 InformerResourceVersion:A0 JobBackoffLimitPerIndex:B1 JobManagedBy:A0 "
        "JobPodFailurePolicy:B1 JobPodReplacementPolicy:B1 JobReadyPods:G1L JobSuccessPolicy:A0 KMSv1:D0 "
        "KMSv2:G1L KMSv2KDF:G1L KubeProxyDrainingTerminatingNodes:B1 KubeletCgroupDriverFromCRI:A0 "
        "KubeletInUserNamespace:A0 KubeletPodResourcesDynamicResources:A0 KubeletPodResourcesGet:A0 "
        "KubeletSeparateDiskGC:A0 KubeletTracing:B1 LegacyServiceAccountTokenCleanUp:G1L LoadBalancerIPMode:B1 "
        "LocalStorageCapacityIsolationFSQuotaMonitoring:A0 LogarithmicScaleDown:B1 LoggingAlphaOptions:A0 "
        "LoggingBetaOptions:B1 MatchLabelKeysInPodAffinity:A0 MatchLabelKeysInPodTopologySpread:B1 "
        "MaxUnavailableStatefulSet:A0 MemoryManager:B1 MemoryQoS:A0 MinDomainsInPodTopologySpread:G1L "
        "MultiCIDRServiceAllocator:A0 MutatingAdmissionPolicy:A0 NFTablesProxyMode:A0 "
        "NewVolumeManagerReconstruction:G1L NodeInclusionPolicyInPodTopologySpread:B1 NodeLogQuery:B0 "
        "NodeOutOfServiceVolumeDetach:G1L NodeSwap:B1 OpenAPIEnums:B1 PDBUnhealthyPodEvictionPolicy:B1 "
        "PersistentVolumeLastPhaseTransitionTime:B1 PodAndContainerStatsFromCRI:A0 PodDeletionCost:B1 "
        "PodDisruptionConditions:B1 PodHostIPs:G1L PodIndexLabel:B1 PodLifecycleSleepAction:B1 "
        "PodReadyToStartContainersCondition:B1 PodSchedulingReadiness:G1L PortForwardWebsockets:A0 "
        "ProcMountType:A0 QOSReserved:A0 ReadWriteOncePod:G1L RecoverVolumeExpansionFailure:A0 "
        "RecursiveReadOnlyMounts:A0 RelaxedEnvironmentVariableValidation:A0 RemainingItemCount:G1L "
        "RetryGenerateName:A0 RotateKubeletServerCertificate:B1 RuntimeClassInImageCriApi:A0 SELinuxMount:A0 "
        "SELinuxMountReadWriteOncePod:B1 SchedulerQueueingHints:B0 SeparateCacheWatchRPC:B1 "
        "SeparateTaintEvictionController:B1 ServerSideApply:G1L ServerSideFieldValidation:G1L "
        "ServiceAccountTokenJTI:B1 ServiceAccountTokenNodeBinding:A0 ServiceAccountTokenNodeBindingValidation:B1 "
        "ServiceAccountTokenPodNodeInfo:B1 ServiceNodePortStaticSubrange:G1L ServiceTrafficDistribution:A0 "
        "SidecarContainers:B1 SizeMemoryBackedVolumes:B1 SkipReadOnlyValidationGCE:D1 "
        "StableLoadBalancerNodeSet:G1L StatefulSetAutoDeletePVC:B1 StatefulSetStartOrdinal:B1 "
        "StorageNamespaceIndex:B1 StorageVersionAPI:A0 StorageVersionHash:B1 StorageVersionMigrator:A0 "
        "StructuredAuthenticationConfiguration:B1 StructuredAuthorizationConfiguration:B1 TopologyAwareHints:B1 "
        "TopologyManagerPolicyAlphaOptions:A0 TopologyManagerPolicyBetaOptions:B1 TopologyManagerPolicyOptions:B1 "
        "TranslateStreamCloseWebsocketRequests:B1 UnauthenticatedHTTP2DOSMitigation:B1 "
        "UnknownVersionInteroperabilityProxy:A0 UserNamespacesPodSecurityStandards:A0 UserNamespacesSupport:B0 "
        "ValidatingAdmissionPolicy:G1L VolumeAttributesClass:A0 VolumeCapacityPriority:A0 WatchBookmark:G1L "
        "WatchFromStorageWithoutResourceVersion:B0 WatchList:A0 WatchListClient:B0 WinDSR:A0 WinOverlay:B1 "
        "WindowsHostNetwork:A1 ZeroLimitedNominalConcurrencyShares:G1L "
    ),
    "v1.31.1": (
        "APIListChunking:G1L APIResponseCompression:B1 APIServerIdentity:B1 APIServerTracing:B1 "
        "APIServingWithRoutine:A0 AdmissionWebhookMatchConditions:G1L AggregatedDiscoveryEndpoint:G1L "
        "AllowDNSOnlyNodeCSR:D0 AllowInsecureKubeletCertificateSigningRequests:D0 AllowServiceLBStatusOnNonLB:D0 "
        "AnonymousAuthConfigurableEndpoints:A0 AnyVolumeDataSource:B1 AppArmor:G1L AppArmorFields:G1L "
        "AuthorizeNodeWithSelectors:A0 AuthorizeWithSelectors:A0 CPUManager:G1L CPUManagerPolicyAlphaOptions:A0 "
        "CPUManagerPolicyBetaOptions:B1 CPUManagerPolicyOptions:B1 CRDValidationRatcheting:B1 "
        "CSIMigrationPortworx:B1 CSIVolumeHealth:A0 CloudControllerManagerWebhook:A0 CloudDualStackNodeIPs:G1L "
        "ClusterTrustBundle:A0 ClusterTrustBundleProjection:A0 ConcurrentWatchObjectDecode:B0 "
        "ConsistentListFromCache:B1 ContainerCheckpoint:B1 ContextualLogging:B1 CoordinatedLeaderElection:A0 "
        "CronJobsScheduledAnnotation:B1 CrossNamespaceVolumeDataSource:A0 CustomCPUCFSQuotaPeriod:A0 "
        "CustomResourceFieldSelectors:B1 DRAControlPlaneController:A0 DevicePluginCDIDevices:G1L "
        "DisableAllocatorDualWrite:A0 DisableCloudProviders:G1L DisableKubeletCloudCredentialProviders:G1L "
        "DisableNodeKubeProxyVersion:D0 DynamicResourceAllocation:A0 EfficientWatchResumption:G1L "
        "ElasticIndexedJob:G1L EventedPLEG:A0 ExecProbeTimeout:G1 GracefulNodeShutdown:B1 "
        "GracefulNodeShutdownBasedOnPodPriority:B1 HPAContainerMetrics:G1L HPAScaleToZero:A0 "
        "HonorPVReclaimPolicy:B1 ImageMaximumGCAge:B1 ImageVolume:A0 InPlacePodVerticalScaling:A0 "
        "InTreePluginPortworxUnregister:A0 InformerResourceVersion:A0 JobBackoffLimitPerIndex:B1 JobManagedBy:A0 "
        "JobPodFailurePolicy:G1L JobPodReplacementPolicy:B1 JobSuccessPolicy:B1 KMSv1:D0 KMSv2:G1L KMSv2KDF:G1L "
        "KubeProxyDrainingTerminatingNodes:G1L KubeletCgroupDriverFromCRI:B1 KubeletInUserNamespace:A0 "
        "KubeletPodResourcesDynamicResources:A0 KubeletPodResourcesGet:A0 KubeletSeparateDiskGC:B1 "
        "KubeletTracing:B1 LegacyServiceAccountTokenCleanUp:G1L LoadBalancerIPMode:B1 "
        "LocalStorageCapacityIsolationFSQuotaMonitoring:B0 LogarithmicScaleDown:G1L LoggingAlphaOptions:A0 "
        "LoggingBetaOptions:B1 MatchLabelKeysInPodAffinity:B1 MatchLabelKeysInPodTopologySpread:B1 "
        "MaxUnavailableStatefulSet:A0 MemoryManager:B1 MemoryQoS:A0 MinDomainsInPodTopologySpread:G1L "
        "MultiCIDRServiceAllocator:B0 MutatingAdmissionPolicy:A0 NFTablesProxyMode:B1 "
        "NewVolumeManagerReconstruction:G1L NodeInclusionPolicyInPodTopologySpread:B1 NodeLogQuery:B0 "
        "NodeOutOfServiceVolumeDetach:G1L NodeSwap:B1 OpenAPIEnums:B1 PDBUnhealthyPodEvictionPolicy:G1L "
        "PersistentVolumeLastPhaseTransitionTime:G1L PodAndContainerStatsFromCRI:A0 PodDeletionCost:B1 "
        "PodDisruptionConditions:G1L PodHostIPs:G1L PodIndexLabel:B1 PodLifecycleSleepAction:B1 "
        "PodReadyToStartContainersCondition:B1 PodSchedulingReadiness:G1L PortForwardWebsockets:B1 "
        "ProcMountType:B0 QOSReserved:A0 RecoverVolumeExpansionFailure:A0 RecursiveReadOnlyMounts:B1 "
        "RelaxedEnvironmentVariableValidation:A0 ReloadKubeletServerCertificateFile:B1 RemainingItemCount:G1L "
        "ResilientWatchCacheInitialization:B1 ResourceHealthStatus:A0 RetryGenerateName:B1 "
        "RotateKubeletServerCertificate:B1 RuntimeClassInImageCriApi:A0 SELinuxMount:A0 "
        "SELinuxMountReadWriteOncePod:B1 SchedulerQueueingHints:B0 SeparateCacheWatchRPC:B1 "
        "SeparateTaintEvictionController:B1 ServerSideApply:G1L ServerSideFieldValidation:G1L "
        "ServiceAccountTokenJTI:B1 ServiceAccountTokenNodeBinding:B1 ServiceAccountTokenNodeBindingValidation:B1 "
        "ServiceAccountTokenPodNodeInfo:B1 ServiceTrafficDistribution:B1 SidecarContainers:B1 "
        "SizeMemoryBackedVolumes:B1 StableLoadBalancerNodeSet:G1L StatefulSetAutoDeletePVC:B1 "
        "StatefulSetStartOrdinal:G1L StorageNamespaceIndex:B1 StorageVersionAPI:A0 StorageVersionHash:B1 "
        "StorageVersionMigrator:A0 StrictCostEnforcementForVAP:B0 StrictCostEnforcementForWebhooks:B0 "
        "StructuredAuthenticationConfiguration:B1 StructuredAuthorizationConfiguration:B1 "
        "SupplementalGroupsPolicy:A0 TopologyAwareHints:B1 TopologyManagerPolicyAlphaOptions:A0 "
        "TopologyManagerPolicyBetaOptions:B1 TopologyManagerPolicyOptions:B1 "
        "TranslateStreamCloseWebsocketRequests:B1 UnauthenticatedHTTP2DOSMitigation:B1 "
        "UnknownVersionInteroperabilityProxy:A0 UserNamespacesPodSecurityStandards:A0 UserNamespacesSupport:B0 "
        "ValidatingAdmissionPolicy:G1L VolumeAttributesClass:B0 VolumeCapacityPriority:A0 WatchBookmark:G1L "
        "WatchCacheInitializationPostStartHook:B0 WatchFromStorageWithoutResourceVersion:B0 WatchList:A0 "
        "WatchListClient:B0 WinDSR:A0 WinOverlay:B1 WindowsHostNetwork:A1 ZeroLimitedNominalConcurrencyShares:G1L "
    ),
    "v1.32.2": (
        "APIListChunking:G1L APIResponseCompression:B1 APIServerIdentity:B1 APIServerTracing:B1 "
        "APIServingWithRoutine:A0 AdmissionWebhookMatchConditions:G1L AggregatedDiscoveryEndpoint:G1L "
        "AllowDNSOnlyNodeCSR:D0 AllowInsecureKubeletCertificateSigningRequests:D0 "
        "AllowOverwriteTerminationGracePeriodSeconds:D0 AllowServiceLBStatusOnNonLB:D0L "
        "AllowUnsafeMalformedObjectDeletion:A0 AnonymousAuthConfigurableEndpoints:B1 AnyVolumeDataSource:B1 "
        "AppArmor:G1L AppArmorFields:G1L AuthorizeNodeWithSelectors:B1 AuthorizeWithSelectors:B1 "
        "BtreeWatchCache:B1 CBORServingAndStorage:A0 CPUCFSQuotaPeriod:A0 CPUManager:G1L "
        "CPUManagerPolicyAlphaOptions:A0 CPUManagerPolicyBetaOptions:B1 CPUManagerPolicyOptions:B1 "
        "CRDValidationRatcheting:B1 CSIMigrationPortworx:B1 CSIVolumeHealth:A0 ClientsAllowCBOR:A0 "
        "ClientsPreferCBOR:A0 CloudControllerManagerWebhook:A0 ClusterTrustBundle:A0 "
        "ClusterTrustBundleProjection:A0 ComponentFlagz:A0 ComponentStatusz:A0 ConcurrentWatchObjectDecode:B0 "
        "ConsistentListFromCache:B1 ContainerCheckpoint:B1 ContextualLogging:B1 CoordinatedLeaderElection:A0 "
        "CronJobsScheduledAnnotation:G1L CrossNamespaceVolumeDataSource:A0 CustomResourceFieldSelectors:G1L "
        "DRAAdminAccess:A0 DRAResourceClaimDeviceStatus:A0 DevicePluginCDIDevices:G1L "
        "DisableAllocatorDualWrite:A0 DisableCloudProviders:G1L DisableKubeletCloudCredentialProviders:G1L "
        "DisableNodeKubeProxyVersion:D0 DynamicResourceAllocation:B0 EfficientWatchResumption:G1L "
        "ElasticIndexedJob:G1L EventedPLEG:A0 ExecProbeTimeout:G1 ExternalServiceAccountTokenSigner:A0 "
        "GracefulNodeShutdown:B1 GracefulNodeShutdownBasedOnPodPriority:B1 HPAScaleToZero:A0 "
        "HonorPVReclaimPolicy:B1 ImageMaximumGCAge:B1 ImageVolume:A0 InPlacePodVerticalScaling:A0 "
        "InPlacePodVerticalScalingAllocatedStatus:A0 InPlacePodVerticalScalingExclusiveCPUs:A0 "
        "InTreePluginPortworxUnregister:A0 InformerResourceVersion:A0 JobBackoffLimitPerIndex:B1 JobManagedBy:B1 "
        "JobPodFailurePolicy:G1L JobPodReplacementPolicy:B1 JobSuccessPolicy:B1 KMSv1:D0 "
        "KubeProxyDrainingTerminatingNodes:G1L KubeletCgroupDriverFromCRI:B1 KubeletCrashLoopBackOffMax:A0 "
        "KubeletFineGrainedAuthz:A0 KubeletInUserNamespace:A0 KubeletPodResourcesDynamicResources:A0 "
        "KubeletPodResourcesGet:A0 KubeletRegistrationGetOnExistsOnly:D0 KubeletSeparateDiskGC:B1 "
        "KubeletTracing:B1 LoadBalancerIPMode:G1L LocalStorageCapacityIsolationFSQuotaMonitoring:B0 "
        "LogarithmicScaleDown:G1L LoggingAlphaOptions:A0 LoggingBetaOptions:B1 MatchLabelKeysInPodAffinity:B1 "
        "MatchLabelKeysInPodTopologySpread:B1 MaxUnavailableStatefulSet:A0 MemoryManager:G1L MemoryQoS:A0 "
        "MultiCIDRServiceAllocator:B0 MutatingAdmissionPolicy:A0 NFTablesProxyMode:B1 "
        "NodeInclusionPolicyInPodTopologySpread:B1 NodeLogQuery:B0 NodeSwap:B1 OpenAPIEnums:B1 "
        "PDBUnhealthyPodEvictionPolicy:G1L PersistentVolumeLastPhaseTransitionTime:G1L "
        "PodAndContainerStatsFromCRI:A0 PodDeletionCost:B1 PodDisruptionConditions:G1L PodIndexLabel:G1L "
        "PodLevelResources:A0 PodLifecycleSleepAction:B1 PodLifecycleSleepActionAllowZero:A0 "
        "PodLogsQuerySplitStreams:A0 PodReadyToStartContainersCondition:B1 PodSchedulingReadiness:G1L "
        "PortForwardWebsockets:B1 ProcMountType:B0 QOSReserved:A0 RecoverVolumeExpansionFailure:B1 "
        "RecursiveReadOnlyMounts:B1 RelaxedDNSSearchValidation:A0 RelaxedEnvironmentVariableValidation:B1 "
        "ReloadKubeletServerCertificateFile:B1 RemainingItemCount:G1L RemoteRequestHeaderUID:A0 "
        "ResilientWatchCacheInitialization:B1 ResourceHealthStatus:A0 RetryGenerateName:G1L "
        "RotateKubeletServerCertificate:B1 RuntimeClassInImageCriAPI:A0 SELinuxChangePolicy:A0 SELinuxMount:A0 "
        "SELinuxMountReadWriteOncePod:B1 SchedulerAsyncPreemption:A0 SchedulerQueueingHints:B1 "
        "SeparateCacheWatchRPC:B1 SeparateTaintEvictionController:B1 ServiceAccountNodeAudienceRestriction:B0 "
        "ServiceAccountTokenJTI:G1L ServiceAccountTokenNodeBinding:B1 "
        "ServiceAccountTokenNodeBindingValidation:G1L ServiceAccountTokenPodNodeInfo:G1L "
        "ServiceTrafficDistribution:B1 SidecarContainers:B1 SizeMemoryBackedVolumes:G1L "
        "StatefulSetAutoDeletePVC:G1L StatefulSetStartOrdinal:G1L StorageNamespaceIndex:B1 StorageVersionAPI:A0 "
        "StorageVersionHash:B1 StorageVersionMigrator:A0 StrictCostEnforcementForVAP:G1L "
        "StrictCostEnforcementForWebhooks:G1L StructuredAuthenticationConfiguration:B1 "
        "StructuredAuthorizationConfiguration:G1L SupplementalGroupsPolicy:A0 SystemdWatchdog:B1 "
        "TopologyAwareHints:B1 TopologyManagerPolicyAlphaOptions:A0 TopologyManagerPolicyBetaOptions:B1 "
        "TopologyManagerPolicyOptions:G1 TranslateStreamCloseWebsocketRequests:B1 "
        "UnauthenticatedHTTP2DOSMitigation:B1 UnknownVersionInteroperabilityProxy:A0 "
        "UserNamespacesPodSecurityStandards:A0 UserNamespacesSupport:B0 VolumeAttributesClass:B0 "
        "VolumeCapacityPriority:A0 WatchBookmark:G1L WatchCacheInitializationPostStartHook:B0 "
        "WatchFromStorageWithoutResourceVersion:B0 WatchList:B1 WatchListClient:B0 WinDSR:A0 WinOverlay:B1 "
        "WindowsCPUAndMemoryAffinity:A0 WindowsGracefulNodeShutdown:A0 WindowsHostNetwork:A1 "
    ),
    "v1.33.0": (
        "APIResponseCompression:B1 APIServerIdentity:B1 APIServerTracing:B1 APIServingWithRoutine:A0 "
        "AggregatedDiscoveryRemoveBetaType:D1 AllowDNSOnlyNodeCSR:D0 "
        "AllowInsecureKubeletCertificateSigningRequests:D0 AllowOverwriteTerminationGracePeriodSeconds:D0 "
        "AllowParsingUserUIDFromCertAuth:B1 AllowServiceLBStatusOnNonLB:D0L AllowUnsafeMalformedObjectDeletion:A0 "
        "AnonymousAuthConfigurableEndpoints:B1 AnyVolumeDataSource:G1L AuthorizeNodeWithSelectors:B1 "
        "AuthorizeWithSelectors:B1 BtreeWatchCache:G1L CBORServingAndStorage:A0 CPUManagerPolicyAlphaOptions:A0 "
        "CPUManagerPolicyBetaOptions:B1 CPUManagerPolicyOptions:G1L CRDValidationRatcheting:G1L "
        "CSIMigrationPortworx:G1L CSIVolumeHealth:A0 ClientsAllowCBOR:A0 ClientsPreferCBOR:A0 "
        "CloudControllerManagerWebhook:A0 ClusterTrustBundle:B0 ClusterTrustBundleProjection:B0 ComponentFlagz:A0 "
        "ComponentStatusz:A0 ConcurrentWatchObjectDecode:B0 ConsistentListFromCache:B1 ContainerCheckpoint:B1 "
        "ContainerStopSignals:A0 ContextualLogging:B1 CoordinatedLeaderElection:B0 "
        "CronJobsScheduledAnnotation:G1L CrossNamespaceVolumeDataSource:A0 CustomCPUCFSQuotaPeriod:A0 "
        "CustomResourceFieldSelectors:G1L DRAAdminAccess:A0 DRADeviceTaints:A0 DRAPartitionableDevices:A0 "
        "DRAPrioritizedList:A0 DRAResourceClaimDeviceStatus:B1 DeclarativeValidation:B1 "
        "DeclarativeValidationTakeover:B0 DeploymentReplicaSetTerminatingReplicas:A0 DevicePluginCDIDevices:G1L "
        "DisableAllocatorDualWrite:B0 DisableCPUQuotaWithExclusiveCPUs:B1 DisableNodeKubeProxyVersion:D1 "
        "DynamicResourceAllocation:B0 ElasticIndexedJob:G1L EventedPLEG:A0 ExecProbeTimeout:G1 "
        "ExternalServiceAccountTokenSigner:A0 GitRepoVolumeDriver:D0 GracefulNodeShutdown:B1 "
        "GracefulNodeShutdownBasedOnPodPriority:B1 HPAConfigurableTolerance:A0 HPAScaleToZero:A0 "
        "HonorPVReclaimPolicy:G1L ImageMaximumGCAge:B1 ImageVolume:B0 InOrderInformers:B1 "
        "InPlacePodVerticalScaling:B1 InPlacePodVerticalScalingAllocatedStatus:D0 "
        "InPlacePodVerticalScalingExclusiveCPUs:A0 InTreePluginPortworxUnregister:A0 InformerResourceVersion:A0 "
        "JobBackoffLimitPerIndex:G1L JobManagedBy:B1 JobPodReplacementPolicy:B1 JobSuccessPolicy:G1L KMSv1:D0 "
        "KubeletCgroupDriverFromCRI:B1 KubeletCrashLoopBackOffMax:A0 KubeletEnsureSecretPulledImages:A0 "
        "KubeletFineGrainedAuthz:B1 KubeletInUserNamespace:A0 KubeletPSI:A0 "
        "KubeletPodResourcesDynamicResources:A0 KubeletPodResourcesGet:A0 KubeletRegistrationGetOnExistsOnly:D0 "
        "KubeletSeparateDiskGC:B1 KubeletServiceAccountTokenForCredentialProviders:A0 KubeletTracing:B1 "
        "LegacySidecarContainers:D0 ListFromCacheSnapshot:A0 LoadBalancerIPMode:G1L "
        "LocalStorageCapacityIsolationFSQuotaMonitoring:B0 LogarithmicScaleDown:G1L LoggingAlphaOptions:A0 "
        "LoggingBetaOptions:B1 MatchLabelKeysInPodAffinity:G1L MatchLabelKeysInPodTopologySpread:B1 "
        "MaxUnavailableStatefulSet:A0 MemoryManager:G1L MemoryQoS:A0 MultiCIDRServiceAllocator:G1 "
        "MutableCSINodeAllocatableCount:A0 MutatingAdmissionPolicy:A0 NFTablesProxyMode:G1L "
        "NodeInclusionPolicyInPodTopologySpread:G1L NodeLogQuery:B0 NodeSwap:B1 OpenAPIEnums:B1 "
        "OrderedNamespaceDeletion:B1 PodAndContainerStatsFromCRI:A0 PodDeletionCost:B1 "
        "PodDisruptionConditions:G1L PodIndexLabel:G1L PodLevelResources:A0 PodLifecycleSleepAction:B1 "
        "PodLifecycleSleepActionAllowZero:B1 PodLogsQuerySplitStreams:A0 PodObservedGenerationTracking:A0 "
        "PodReadyToStartContainersCondition:B1 PodSchedulingReadiness:G1L PodTopologyLabelsAdmission:A0 "
        "PortForwardWebsockets:B1 PreferSameTrafficDistribution:A0 ProcMountType:B1 QOSReserved:A0 "
        "RecoverVolumeExpansionFailure:B1 RecursiveReadOnlyMounts:G1L ReduceDefaultCrashLoopBackOffDecay:A0 "
        "RelaxedDNSSearchValidation:B1 RelaxedEnvironmentVariableValidation:B1 "
        "ReloadKubeletServerCertificateFile:B1 RemoteRequestHeaderUID:B1 ResilientWatchCacheInitialization:B1 "
        "ResourceHealthStatus:A0 RetryGenerateName:G1L RotateKubeletServerCertificate:B1 "
        "RuntimeClassInImageCriApi:A0 SELinuxChangePolicy:B1 SELinuxMount:B0 SELinuxMountReadWriteOncePod:B1 "
        "SchedulerAsyncPreemption:B1 SchedulerPopFromBackoffQ:B1 SchedulerQueueingHints:B1 "
        "SeparateCacheWatchRPC:D0 SeparateTaintEvictionController:B1 ServiceAccountNodeAudienceRestriction:B1 "
        "ServiceAccountTokenJTI:G1L ServiceAccountTokenNodeBinding:G1L "
        "ServiceAccountTokenNodeBindingValidation:G1L ServiceAccountTokenPodNodeInfo:G1L "
        "ServiceTrafficDistribution:G1L SidecarContainers:G1L SizeMemoryBackedVolumes:G1L "
        "StatefulSetAutoDeletePVC:G1L StatefulSetStartOrdinal:G1L StorageCapacityScoring:A0 "
        "StorageNamespaceIndex:D1 StorageVersionAPI:A0 StorageVersionHash:B1 StorageVersionMigrator:A0 "
        "StreamingCollectionEncodingToJSON:B1 StreamingCollectionEncodingToProtobuf:B1 "
        "StrictCostEnforcementForVAP:G1L StrictCostEnforcementForWebhooks:G1L StrictIPCIDRValidation:A0 "
        "StructuredAuthenticationConfiguration:B1 StructuredAuthorizationConfiguration:G1L "
        "SupplementalGroupsPolicy:B1 SystemdWatchdog:B1 TopologyAwareHints:G1L "
        "TopologyManagerPolicyAlphaOptions:A0 TopologyManagerPolicyBetaOptions:B1 TopologyManagerPolicyOptions:G1 "
        "TranslateStreamCloseWebsocketRequests:B1 UnauthenticatedHTTP2DOSMitigation:B1 "
        "UnknownVersionInteroperabilityProxy:A0 UserNamespacesPodSecurityStandards:A0 UserNamespacesSupport:B1 "
        "VolumeAttributesClass:B0 WatchCacheInitializationPostStartHook:B0 "
        "WatchFromStorageWithoutResourceVersion:D0L WatchList:B0 WatchListClient:B0 WinDSR:B1 WinOverlay:B1 "
        "WindowsCPUAndMemoryAffinity:A0 WindowsGracefulNodeShutdown:A0 WindowsHostNetwork:D0 "
    ),
    "v1.34.1": (
        "APIResponseCompression:B1 APIServerIdentity:B1 APIServerTracing:G1L APIServingWithRoutine:A0 "
        "AggregatedDiscoveryRemoveBetaType:D1 AllowDNSOnlyNodeCSR:D0 "
        "AllowInsecureKubeletCertificateSigningRequests:D0 AllowOverwriteTerminationGracePeriodSeconds:D0 "
        "AllowParsingUserUIDFromCertAuth:B1 AllowServiceLBStatusOnNonLB:D0L AllowUnsafeMalformedObjectDeletion:A0 "
        "AnonymousAuthConfigurableEndpoints:G1L AnyVolumeDataSource:G1L AuthorizeNodeWithSelectors:G1L "
        "AuthorizeWithSelectors:G1L BtreeWatchCache:G1L CBORServingAndStorage:A0 CPUManagerPolicyAlphaOptions:A0 "
        "CPUManagerPolicyBetaOptions:B1 CPUManagerPolicyOptions:G1L CRDValidationRatcheting:G1L "
        "CSIMigrationPortworx:G1L CSIVolumeHealth:A0 ClearingNominatedNodeNameAfterBinding:A0 ClientsAllowCBOR:A0 "
        "ClientsPreferCBOR:A0 CloudControllerManagerWebhook:A0 ClusterTrustBundle:B0 "
        "ClusterTrustBundleProjection:B0 ComponentFlagz:A0 ComponentStatusz:A0 ConcurrentWatchObjectDecode:B0 "
        "ConsistentListFromCache:G1L ContainerCheckpoint:B1 ContainerRestartRules:A0 ContainerStopSignals:A0 "
        "ContextualLogging:B1 CoordinatedLeaderElection:B0 CronJobsScheduledAnnotation:G1L "
        "CrossNamespaceVolumeDataSource:A0 CustomCPUCFSQuotaPeriod:A0 CustomResourceFieldSelectors:G1L "
        "DRAAdminAccess:B1 DRAConsumableCapacity:A0 DRADeviceBindingConditions:A0 DRADeviceTaints:A0 "
        "DRAExtendedResource:A0 DRAPartitionableDevices:A0 DRAPrioritizedList:B1 DRAResourceClaimDeviceStatus:B1 "
        "DRASchedulerFilterTimeout:B1 DeclarativeValidation:B1 DeclarativeValidationTakeover:B0 "
        "DeploymentReplicaSetTerminatingReplicas:A0 DetectCacheInconsistency:B1 DisableAllocatorDualWrite:G1 "
        "DisableCPUQuotaWithExclusiveCPUs:B1 DisableNodeKubeProxyVersion:D1 DynamicResourceAllocation:G1 "
        "EnvFiles:A0 EventedPLEG:A0 ExecProbeTimeout:G1 ExternalServiceAccountTokenSigner:B1 "
        "GitRepoVolumeDriver:D0 GracefulNodeShutdown:B1 GracefulNodeShutdownBasedOnPodPriority:B1 "
        "HPAConfigurableTolerance:A0 HPAScaleToZero:A0 HonorPVReclaimPolicy:G1L HostnameOverride:A0 "
        "ImageMaximumGCAge:B1 ImageVolume:B0 InOrderInformers:B1 InPlacePodVerticalScaling:B1 "
        "InPlacePodVerticalScalingAllocatedStatus:D0 InPlacePodVerticalScalingExclusiveCPUs:A0 "
        "InPlacePodVerticalScalingExclusiveMemory:A0 InTreePluginPortworxUnregister:A0 InformerResourceVersion:A0 "
        "JobBackoffLimitPerIndex:G1L JobManagedBy:B1 JobPodReplacementPolicy:G1L JobSuccessPolicy:G1L KMSv1:D0 "
        "KubeletCgroupDriverFromCRI:G1L KubeletCrashLoopBackOffMax:A0 KubeletEnsureSecretPulledImages:A0 "
        "KubeletFineGrainedAuthz:B1 KubeletInUserNamespace:A0 KubeletPSI:B1 "
        "KubeletPodResourcesDynamicResources:B1 KubeletPodResourcesGet:B1 KubeletPodResourcesListUseActivePods:D1 "
        "KubeletRegistrationGetOnExistsOnly:D0 KubeletSeparateDiskGC:B1 "
        "KubeletServiceAccountTokenForCredentialProviders:B1 KubeletTracing:G1L ListFromCacheSnapshot:B1 "
        "LoadBalancerIPMode:G1L LocalStorageCapacityIsolationFSQuotaMonitoring:B0 LogarithmicScaleDown:G1L "
        "LoggingAlphaOptions:A0 LoggingBetaOptions:B1 MatchLabelKeysInPodAffinity:G1L "
        "MatchLabelKeysInPodTopologySpread:B1 MatchLabelKeysInPodTopologySpreadSelectorMerge:B1 "
        "MaxUnavailableStatefulSet:A0 MemoryManager:G1L MemoryQoS:A0 MultiCIDRServiceAllocator:G1L "
        "MutableCSINodeAllocatableCount:B0 MutatingAdmissionPolicy:B0 NFTablesProxyMode:G1L "
        "NodeInclusionPolicyInPodTopologySpread:G1L NodeLogQuery:B0 NodeSwap:G1L "
        "NominatedNodeNameForExpectation:A0 OpenAPIEnums:B1 OrderedNamespaceDeletion:G1L "
        "PodAndContainerStatsFromCRI:A0 PodCertificateRequest:A0 PodDeletionCost:B1 PodIndexLabel:G1L "
        "PodLevelResources:B1 PodLifecycleSleepAction:G1L PodLifecycleSleepActionAllowZero:G1L "
        "PodLogsQuerySplitStreams:A0 PodObservedGenerationTracking:B1 PodReadyToStartContainersCondition:B1 "
        "PodSchedulingReadiness:G1L PodTopologyLabelsAdmission:A0 PortForwardWebsockets:B1 "
        "PreferSameTrafficDistribution:B1 PreventStaticPodAPIReferences:B1 ProbeHostPodSecurityStandards:G1L "
        "ProcMountType:B1 QOSReserved:A0 RecoverVolumeExpansionFailure:G1L RecursiveReadOnlyMounts:G1L "
        "ReduceDefaultCrashLoopBackOffDecay:A0 RelaxedDNSSearchValidation:G1L "
        "RelaxedEnvironmentVariableValidation:G1L RelaxedServiceNameValidation:A0 "
        "ReloadKubeletServerCertificateFile:B1 RemoteRequestHeaderUID:B1 ResilientWatchCacheInitialization:G1L "
        "ResourceHealthStatus:A0 RetryGenerateName:G1L RotateKubeletServerCertificate:B1 "
        "RuntimeClassInImageCriApi:A0 SELinuxChangePolicy:B1 SELinuxMount:B0 SELinuxMountReadWriteOncePod:B1 "
        "SchedulerAsyncAPICalls:B1 SchedulerAsyncPreemption:B1 SchedulerPopFromBackoffQ:B1 "
        "SchedulerQueueingHints:G1L SeparateCacheWatchRPC:D0 SeparateTaintEvictionController:G1L "
        "ServiceAccountNodeAudienceRestriction:B1 ServiceAccountTokenJTI:G1L ServiceAccountTokenNodeBinding:G1L "
        "ServiceAccountTokenNodeBindingValidation:G1L ServiceAccountTokenPodNodeInfo:G1L "
        "ServiceTrafficDistribution:G1L SidecarContainers:G1L SizeBasedListCostEstimate:B1 "
        "SizeMemoryBackedVolumes:G1L StatefulSetAutoDeletePVC:G1L StorageCapacityScoring:A0 "
        "StorageNamespaceIndex:D1 StorageVersionAPI:A0 StorageVersionHash:B1 StorageVersionMigrator:A0 "
        "StreamingCollectionEncodingToJSON:G1L StreamingCollectionEncodingToProtobuf:G1L "
        "StrictCostEnforcementForVAP:G1L StrictCostEnforcementForWebhooks:G1L StrictIPCIDRValidation:A0 "
        "StructuredAuthenticationConfiguration:G1L StructuredAuthenticationConfigurationEgressSelector:B1 "
        "StructuredAuthorizationConfiguration:G1L SupplementalGroupsPolicy:B1 SystemdWatchdog:B1 "
        "TokenRequestServiceAccountUIDValidation:B1 TopologyAwareHints:G1L TopologyManagerPolicyAlphaOptions:A0 "
        "TopologyManagerPolicyBetaOptions:B1 TopologyManagerPolicyOptions:G1 "
        "TranslateStreamCloseWebsocketRequests:B1 UnauthenticatedHTTP2DOSMitigation:B1 "
        "UnknownVersionInteroperabilityProxy:A0 UserNamespacesPodSecurityStandards:A0 UserNamespacesSupport:B1 "
        "VolumeAttributesClass:G1 WatchCacheInitializationPostStartHook:B0 "
        "WatchFromStorageWithoutResourceVersion:D0L WatchList:B1 WatchListClient:B0 WinDSR:G1L WinOverlay:G1L "
        "WindowsCPUAndMemoryAffinity:A0 WindowsGracefulNodeShutdown:B1 WindowsHostNetwork:D0 "
    ),
    "v1.35.6": (
        "APIResponseCompression:B1 APIServerIdentity:B1 APIServerTracing:G1L APIServingWithRoutine:A0 "
        "AggregatedDiscoveryRemoveBetaType:D1L AllowDNSOnlyNodeCSR:D0 "
        "AllowInsecureKubeletCertificateSigningRequests:D0 AllowOverwriteTerminationGracePeriodSeconds:D0L "
        "AllowParsingUserUIDFromCertAuth:B1 AllowUnsafeMalformedObjectDeletion:A0 "
        "AnonymousAuthConfigurableEndpoints:G1L AnyVolumeDataSource:G1L AuthorizeNodeWithSelectors:G1L "
        "AuthorizePodWebsocketUpgradeCreatePermission:B1 AuthorizeWithSelectors:G1L BtreeWatchCache:G1L "
        "CBORServingAndStorage:A0 CPUManagerPolicyAlphaOptions:A0 CPUManagerPolicyBetaOptions:B1 "
        "CPUManagerPolicyOptions:G1L CRDObservedGenerationTracking:B0 CRDValidationRatcheting:G1L "
        "CSIMigrationPortworx:G1L CSIServiceAccountTokenSecrets:B1 CSIVolumeHealth:A0 "
        "ChangeContainerStatusOnKubeletRestart:D0 ClearingNominatedNodeNameAfterBinding:B1 ClientsAllowCBOR:A0 "
        "ClientsPreferCBOR:A0 CloudControllerManagerWatchBasedRoutesReconciliation:A0 "
        "CloudControllerManagerWebhook:A0 ClusterTrustBundle:B0 ClusterTrustBundleProjection:B0 "
        "ComponentFlagz:A0 ComponentStatusz:A0 ConcurrentWatchObjectDecode:B0 ConsistentListFromCache:G1L "
        "ConstrainedImpersonation:A0 ContainerCheckpoint:B1 ContainerRestartRules:B1 ContainerStopSignals:A0 "
        "ContextualLogging:B1 CoordinatedLeaderElection:B0 CrossNamespaceVolumeDataSource:A0 "
        "CustomCPUCFSQuotaPeriod:A0 CustomResourceFieldSelectors:G1L DRAAdminAccess:B1 DRAConsumableCapacity:A0 "
        "DRADeviceBindingConditions:A0 DRADeviceTaintRules:A0 DRADeviceTaints:A0 DRAExtendedResource:A0 "
        "DRAPartitionableDevices:A0 DRAPrioritizedList:B1 DRAResourceClaimDeviceStatus:B1 "
        "DRASchedulerFilterTimeout:B1 DeclarativeValidation:B1 DeclarativeValidationTakeover:B0 "
        "DeploymentReplicaSetTerminatingReplicas:B1 DetectCacheInconsistency:B1 DisableAllocatorDualWrite:G1L "
        "DisableCPUQuotaWithExclusiveCPUs:B1 DisableNodeKubeProxyVersion:D1 DynamicResourceAllocation:G1L "
        "EnvFiles:B1 EventedPLEG:A0 ExecProbeTimeout:G1L ExternalServiceAccountTokenSigner:B1 GangScheduling:A0 "
        "GenericWorkload:A0 GitRepoVolumeDriver:D0 GracefulNodeShutdown:B1 "
        "GracefulNodeShutdownBasedOnPodPriority:B1 HPAConfigurableTolerance:B1 HPAScaleToZero:A0 "
        "HonorPVReclaimPolicy:G1L HostnameOverride:B1 ImageMaximumGCAge:G1L ImageVolume:B1 InOrderInformers:B1 "
        "InOrderInformersBatchProcess:B1 InPlacePodLevelResourcesVerticalScaling:A0 "
        "InPlacePodVerticalScaling:G1L InPlacePodVerticalScalingAllocatedStatus:D0 "
        "InPlacePodVerticalScalingExclusiveCPUs:A0 InPlacePodVerticalScalingExclusiveMemory:A0 "
        "InTreePluginPortworxUnregister:A0 InformerResourceVersion:G1 JobBackoffLimitPerIndex:G1L "
        "JobManagedBy:G1L JobPodReplacementPolicy:G1L JobSuccessPolicy:G1L KMSv1:D0 "
        "KubeletCgroupDriverFromCRI:G1L KubeletCrashLoopBackOffMax:B1 KubeletEnsureSecretPulledImages:B1 "
        "KubeletFineGrainedAuthz:B1 KubeletInUserNamespace:A0 KubeletPSI:B1 "
        "KubeletPodResourcesDynamicResources:B1 KubeletPodResourcesGet:B1 "
        "KubeletPodResourcesListUseActivePods:D1 KubeletRegistrationGetOnExistsOnly:D0 KubeletSeparateDiskGC:B1 "
        "KubeletServiceAccountTokenForCredentialProviders:B1 KubeletTracing:G1L ListFromCacheSnapshot:B1 "
        "LocalStorageCapacityIsolationFSQuotaMonitoring:B0 LogarithmicScaleDown:G1L LoggingAlphaOptions:A0 "
        "LoggingBetaOptions:B1 MatchLabelKeysInPodAffinity:G1L MatchLabelKeysInPodTopologySpread:B1 "
        "MatchLabelKeysInPodTopologySpreadSelectorMerge:B1 MaxUnavailableStatefulSet:B0 MemoryManager:G1L "
        "MemoryQoS:A0 MultiCIDRServiceAllocator:G1L MutableCSINodeAllocatableCount:B1 MutablePVNodeAffinity:A0 "
        "MutablePodResourcesForSuspendedJobs:A0 MutableSchedulingDirectivesForSuspendedJobs:A0 "
        "MutatingAdmissionPolicy:B0 NFTablesProxyMode:G1L NodeDeclaredFeatures:A0 "
        "NodeInclusionPolicyInPodTopologySpread:G1L NodeLogQuery:B1 NodeSwap:G1L "
        "NominatedNodeNameForExpectation:B1 OpenAPIEnums:B1 OpportunisticBatching:B1 "
        "OrderedNamespaceDeletion:G1L PodAndContainerStatsFromCRI:A0 PodCertificateRequest:B0 PodDeletionCost:B1 "
        "PodLevelResources:B1 PodLifecycleSleepAction:G1L PodLifecycleSleepActionAllowZero:G1L "
        "PodLogsQuerySplitStreams:A0 PodObservedGenerationTracking:G1L PodReadyToStartContainersCondition:B1 "
        "PodSchedulingReadiness:G1L PodTopologyLabelsAdmission:B1 PortForwardWebsockets:B1 "
        "PreferSameTrafficDistribution:G1L PreventStaticPodAPIReferences:B1 ProcMountType:B1 QOSReserved:A0 "
        "RecoverVolumeExpansionFailure:G1L RecursiveReadOnlyMounts:G1L ReduceDefaultCrashLoopBackOffDecay:A0 "
        "RelaxedDNSSearchValidation:G1L RelaxedEnvironmentVariableValidation:G1L RelaxedServiceNameValidation:A0 "
        "ReloadKubeletServerCertificateFile:B1 RemoteRequestHeaderUID:B1 ResilientWatchCacheInitialization:G1L "
        "ResourceHealthStatus:A0 RestartAllContainersOnContainerExits:A0 RetryGenerateName:G1L "
        "RotateKubeletServerCertificate:B1 RuntimeClassInImageCriApi:A0 SELinuxChangePolicy:B1 SELinuxMount:B0 "
        "SELinuxMountReadWriteOncePod:B1 SchedulerAsyncAPICalls:B0 SchedulerAsyncPreemption:B1 "
        "SchedulerPopFromBackoffQ:B1 SchedulerQueueingHints:G1L SeparateCacheWatchRPC:D0 "
        "SeparateTaintEvictionController:G1L ServiceAccountNodeAudienceRestriction:B1 ServiceAccountTokenJTI:G1L "
        "ServiceAccountTokenNodeBinding:G1L ServiceAccountTokenNodeBindingValidation:G1L "
        "ServiceAccountTokenPodNodeInfo:G1L ServiceTrafficDistribution:G1L SidecarContainers:G1L "
        "SizeBasedListCostEstimate:B1 StatefulSetSemanticRevisionComparison:B1 StorageCapacityScoring:A0 "
        "StorageNamespaceIndex:D1 StorageVersionAPI:A0 StorageVersionHash:B1 StorageVersionMigrator:B0 "
        "StreamingCollectionEncodingToJSON:G1L StreamingCollectionEncodingToProtobuf:G1L "
        "StrictIPCIDRValidation:A0 StructuredAuthenticationConfiguration:G1L "
        "StructuredAuthenticationConfigurationEgressSelector:B1 "
        "StructuredAuthenticationConfigurationJWKSMetrics:B1 StructuredAuthorizationConfiguration:G1L "
        "SupplementalGroupsPolicy:G1L SystemdWatchdog:G1L TaintTolerationComparisonOperators:A0 "
        "TokenRequestServiceAccountUIDValidation:B1 TopologyAwareHints:G1L TopologyManagerPolicyAlphaOptions:A0 "
        "TopologyManagerPolicyBetaOptions:B1 TopologyManagerPolicyOptions:G1 "
        "TranslateStreamCloseWebsocketRequests:B1 UnauthenticatedHTTP2DOSMitigation:B1 "
        "UnknownVersionInteroperabilityProxy:A0 UserNamespacesHostNetworkSupport:A0 UserNamespacesSupport:B1 "
        "VolumeAttributesClass:G1 VolumeLimitScaling:A0 WatchCacheInitializationPostStartHook:B0 "
        "WatchFromStorageWithoutResourceVersion:D0L WatchList:B1 WatchListClient:B1 WinDSR:G1L WinOverlay:G1L "
        "WindowsCPUAndMemoryAffinity:A0 WindowsGracefulNodeShutdown:B1 WindowsHostNetwork:D0 "
    ),
    "v1.36.2": (
        "APIResponseCompression:B1 APIServerIdentity:B1 APIServerTracing:G1L APIServingWithRoutine:A0 "
        "AggregatedDiscoveryRemoveBetaType:D1L AllowDNSOnlyNodeCSR:D0 "
        "AllowInsecureKubeletCertificateSigningRequests:D0 AllowOverwriteTerminationGracePeriodSeconds:D0L "
        "AllowParsingUserUIDFromCertAuth:B1 AllowServiceExternalIPs:G1 AllowUnsafeMalformedObjectDeletion:A0 "
        "AnonymousAuthConfigurableEndpoints:G1L AnyVolumeDataSource:G1L AtomicFIFO:B1 "
        "AuthorizeNodeWithSelectors:G1L AuthorizePodWebsocketUpgradeCreatePermission:B1 "
        "AuthorizeWithSelectors:G1L BtreeWatchCache:G1L CBORServingAndStorage:A0 CPUManagerPolicyAlphaOptions:A0 "
        "CPUManagerPolicyBetaOptions:B1 CPUManagerPolicyOptions:G1L CRDObservedGenerationTracking:B1 "
        "CRDValidationRatcheting:G1L CRIListStreaming:A0 CSIServiceAccountTokenSecrets:G1L CSIVolumeHealth:A0 "
        "ChangeContainerStatusOnKubeletRestart:D0 ClearingNominatedNodeNameAfterBinding:B1 "
        "ClientsAllowCARotation:B1 ClientsAllowCBOR:A0 ClientsAllowTLSCacheGC:B1 ClientsPreferCBOR:A0 "
        "CloudControllerManagerWatchBasedRoutesReconciliation:A0 CloudControllerManagerWebhook:A0 "
        "ClusterTrustBundle:B0 ClusterTrustBundleProjection:B0 ComponentFlagz:B1 ComponentStatusz:B1 "
        "ConcurrentWatchObjectDecode:B0 ConsistentListFromCache:G1L ConstrainedImpersonation:B1 "
        "ContainerCheckpoint:B1 ContainerRestartRules:B1 ContainerStopSignals:A0 ContextualLogging:B1 "
        "CoordinatedLeaderElection:B0 CrossNamespaceVolumeDataSource:A0 CustomCPUCFSQuotaPeriod:G1 "
        "CustomResourceFieldSelectors:G1L DRAAdminAccess:G1L DRAConsumableCapacity:B1 "
        "DRADeviceBindingConditions:B1 DRADeviceTaintRules:B0 DRADeviceTaints:B1 DRAExtendedResource:B1 "
        "DRAListTypeAttributes:A0 DRANodeAllocatableResources:A0 DRAPartitionableDevices:B1 DRAPrioritizedList:G1 "
        "DRAResourceClaimDeviceStatus:B1 DRAResourceClaimGranularStatusAuthorization:B1 DRAResourcePoolStatus:A0 "
        "DRASchedulerFilterTimeout:B1 DRAWorkloadResourceClaims:A0 DeclarativeValidation:G1L "
        "DeclarativeValidationBeta:B1 DeclarativeValidationTakeover:D0 DeploymentReplicaSetTerminatingReplicas:B1 "
        "DetectCacheInconsistency:B1 DisableAllocatorDualWrite:G1L DisableCPUQuotaWithExclusiveCPUs:D1 "
        "DisableNodeKubeProxyVersion:D1L DynamicResourceAllocation:G1L EnvFiles:B1 EventedPLEG:A0 "
        "ExecProbeTimeout:G1L ExtendWebSocketsToKubelet:B1 ExternalServiceAccountTokenSigner:G1L "
        "GangScheduling:A0 GenericWorkload:A0 GitRepoVolumeDriver:D0L GracefulNodeShutdown:B1 "
        "GracefulNodeShutdownBasedOnPodPriority:B1 HPAConfigurableTolerance:B1 HPAScaleToZero:A0 "
        "HostnameOverride:B1 ImageMaximumGCAge:G1L ImageVolume:G1L ImageVolumeWithDigest:A0 InOrderInformers:G1L "
        "InOrderInformersBatchProcess:B1 InPlacePodLevelResourcesVerticalScaling:B1 InPlacePodVerticalScaling:G1L "
        "InPlacePodVerticalScalingExclusiveCPUs:A0 InPlacePodVerticalScalingExclusiveMemory:A0 "
        "InPlacePodVerticalScalingInitContainers:B1 InformerResourceVersion:G1 JobBackoffLimitPerIndex:G1L "
        "JobManagedBy:G1L JobPodReplacementPolicy:G1L JobSuccessPolicy:G1L KMSv1:D0 "
        "KubeletCgroupDriverFromCRI:G1L KubeletCrashLoopBackOffMax:B1 KubeletEnsureSecretPulledImages:B1 "
        "KubeletFineGrainedAuthz:G1L KubeletInUserNamespace:A0 KubeletPSI:G1L "
        "KubeletPodResourcesDynamicResources:G1L KubeletPodResourcesGet:G1L "
        "KubeletPodResourcesListUseActivePods:D1 KubeletRegistrationGetOnExistsOnly:D0 KubeletSeparateDiskGC:B1 "
        "KubeletServiceAccountTokenForCredentialProviders:B1 KubeletTracing:G1L ListFromCacheSnapshot:B1 "
        "LocalStorageCapacityIsolationFSQuotaMonitoring:B0 LogarithmicScaleDown:G1L LoggingAlphaOptions:A0 "
        "LoggingBetaOptions:B1 ManifestBasedAdmissionControlConfig:A0 MatchLabelKeysInPodAffinity:G1L "
        "MatchLabelKeysInPodTopologySpread:B1 MatchLabelKeysInPodTopologySpreadSelectorMerge:B1 "
        "MaxUnavailableStatefulSet:B0 MemoryQoS:A0 MultiCIDRServiceAllocator:G1L "
        "MutableCSINodeAllocatableCount:G1L MutablePVNodeAffinity:A0 MutablePodResourcesForSuspendedJobs:B1 "
        "MutableSchedulingDirectivesForSuspendedJobs:B1 MutatingAdmissionPolicy:G1 NFTablesProxyMode:G1L "
        "NodeDeclaredFeatures:B1 NodeInclusionPolicyInPodTopologySpread:G1L NodeLogQuery:G1L NodeSwap:G1L "
        "NominatedNodeNameForExpectation:B1 OpenAPIEnums:B1 OpportunisticBatching:B1 OrderedNamespaceDeletion:G1L "
        "PLEGOnDemandRelist:B1 PersistentVolumeClaimUnusedSinceTime:A0 PodAndContainerStatsFromCRI:A0 "
        "PodCertificateRequest:B0 PodDeletionCost:B1 PodLevelResourceManagers:A0 PodLevelResources:B1 "
        "PodLifecycleSleepAction:G1L PodLifecycleSleepActionAllowZero:G1L PodLogsQuerySplitStreams:A0 "
        "PodObservedGenerationTracking:G1L PodReadyToStartContainersCondition:B1 PodSchedulingReadiness:G1L "
        "PodTopologyLabelsAdmission:B1 PodsAPI:A0 PortForwardWebsockets:B1 PreferSameTrafficDistribution:G1L "
        "PreventStaticPodAPIReferences:B1 ProcMountType:G1L QOSReserved:A0 RecoverVolumeExpansionFailure:G1L "
        "RecursiveReadOnlyMounts:G1L ReduceDefaultCrashLoopBackOffDecay:A0 RelaxedDNSSearchValidation:G1L "
        "RelaxedEnvironmentVariableValidation:G1L RelaxedServiceNameValidation:B1 ReloadKubeletClientCAFile:B1 "
        "ReloadKubeletServerCertificateFile:B1 RemoteRequestHeaderUID:B1 ResilientWatchCacheInitialization:G1L "
        "ResourceHealthStatus:B1 ResourceHealthStatusMessage:B1 RestartAllContainersOnContainerExits:B1 "
        "RetryGenerateName:G1L RotateKubeletServerCertificate:B1 RuntimeClassInImageCriApi:A0 "
        "SELinuxChangePolicy:G1L SELinuxMount:B0 SELinuxMountReadWriteOncePod:G1L SchedulerAsyncAPICalls:B0 "
        "SchedulerAsyncPreemption:B1 SchedulerPopFromBackoffQ:B1 SchedulerQueueingHints:G1L "
        "SeparateCacheWatchRPC:D0L SeparateTaintEvictionController:G1L ServiceAccountNodeAudienceRestriction:B1 "
        "ServiceAccountTokenJTI:G1L ServiceAccountTokenNodeBinding:G1L "
        "ServiceAccountTokenNodeBindingValidation:G1L ServiceAccountTokenPodNodeInfo:G1L "
        "ServiceCIDRStatusFieldWiping:D1 ShardedListAndWatch:A0 SidecarContainers:G1L "
        "SizeBasedListCostEstimate:B1 StaleControllerConsistencyDaemonSet:B1 StaleControllerConsistencyJob:B1 "
        "StaleControllerConsistencyReplicaSet:B1 StaleControllerConsistencyStatefulSet:B1 "
        "StatefulSetSemanticRevisionComparison:B1 StorageCapacityScoring:A0 StorageNamespaceIndex:D1 "
        "StorageVersionAPI:A0 StorageVersionHash:B1 StorageVersionMigrator:B0 "
        "StreamingCollectionEncodingToJSON:G1L StreamingCollectionEncodingToProtobuf:G1L "
        "StrictIPCIDRValidation:B1 StructuredAuthenticationConfiguration:G1L "
        "StructuredAuthenticationConfigurationEgressSelector:B1 "
        "StructuredAuthenticationConfigurationJWKSMetrics:B1 SupplementalGroupsPolicy:G1L SystemdWatchdog:G1L "
        "TaintTolerationComparisonOperators:A0 TokenRequestServiceAccountUIDValidation:B1 "
        "TopologyAwareWorkloadScheduling:A0 TopologyManagerPolicyAlphaOptions:A0 "
        "TopologyManagerPolicyBetaOptions:B1 TopologyManagerPolicyOptions:G1L "
        "TranslateStreamCloseWebsocketRequests:B1 UnauthenticatedHTTP2DOSMitigation:B1 "
        "UnknownVersionInteroperabilityProxy:B1 UnlockWhileProcessingFIFO:B1 UserNamespacesHostNetworkSupport:A0 "
        "UserNamespacesSupport:G1L VolumeAttributesClass:G1L VolumeLimitScaling:A0 "
        "WatchCacheInitializationPostStartHook:B1 WatchList:B1 WatchListClient:B1 WinDSR:G1L WinOverlay:G1L "
        "WindowsCPUAndMemoryAffinity:A0 WindowsGracefulNodeShutdown:B1 WindowsHostNetwork:D0 "
        "WorkloadAwarePreemption:A0 WorkloadWithJob:A0 "
    ),
}

# release -> its table above, split: an interning of constants (every answer is read from the
# source's own tables, none could differ if computed again), so not a memory model/memory.py's
# switch turns off
_PARSED: dict[str, dict[str, GateSpec]] = {}


def gates_of(release: str) -> dict[str, GateSpec]:
    """The gates of an imitated release ("v1.33.0"), by name; empty for a release not tabled."""
    got = _PARSED.get(release)
    if got is None:
        got = {}
        for entry in _TABLES.get(release, "").split():
            name, state = entry.split(":")
            got[name] = GateSpec(state[1] == "1", state[0], state.endswith("L"))
        _PARSED[release] = got
    return got


# --- which gates touch scheduling, and which of those are imitated -------------------------------
# The gates kube-scheduler's own code reads (plugins/feature/feature.go's Features, and the
# scheduler's framework, queue and preemption: pkg/scheduler's features.* reads; the API server's
# binding storage for ClearingNominatedNodeNameAfterBinding), each with the releases whose behaviour
# under either value of the gate this project imitates. Setting one of these to a value other than
# its release's default is refused unless the release is listed (no gate accepted and ignored);
# a gate not listed here does not touch scheduling and is accepted with no effect on it.
# Marking a gate as imitated for a release is one line: its entry's releases.
def since(release: str) -> frozenset[str]:
    """The imitated releases from `release` on ("v1.35.6": v1.35.6 and v1.36.2)."""
    return frozenset(KUBERNETES_VERSIONS[KUBERNETES_VERSIONS.index(release):])


EVERY = since("v1.30.1")
NONE: frozenset[str] = frozenset()

SCHEDULING_GATES: dict[str, frozenset[str]] = {
    # imitated (framework/versions.py GATE_FIELDS reach the plugins and the default profile)
    "DynamicResourceAllocation": EVERY,
    "DRAPrioritizedList": EVERY,
    "PodLevelResources": EVERY,
    "InPlacePodVerticalScaling": EVERY,
    # pod-level requests read with the pod's status (model/resources.py pod_level_status)
    "InPlacePodLevelResourcesVerticalScaling": since("v1.35.6"),
    "NodeDeclaredFeatures": EVERY,
    # imitated by the replay (framework/config.py FEATURE_GATES, scheduler/backend/api_dispatcher.py)
    "SchedulerAsyncPreemption": EVERY,
    "SchedulerAsyncAPICalls": EVERY,
    # across cycles: batching and nominations (issue 37's replay)
    "OpportunisticBatching": since("v1.35.6"),
    "NominatedNodeNameForExpectation": NONE,
    "ClearingNominatedNodeNameAfterBinding": NONE,
    # workload-aware scheduling: pod groups, the pod-group cycle and gangs, their preemption
    # (scheduler/schedule_one_podgroup.py, plugins/gangscheduling, preemption/podgroup_preemption.py);
    # v1.35's Workload API and gang scheduling (no pod-group cycle: each member is scheduled alone
    # and waits at Permit for its gang, plugins/gangscheduling) exist from v1.35.6; v1.35 has no
    # WorkloadAwarePreemption gate at all (pkg/features/kube_features.go of v1.35.6), and placements
    # (TopologyAwareWorkloadScheduling) are not imitated
    "GenericWorkload": since("v1.35.6"),
    "GangScheduling": since("v1.35.6"),
    "WorkloadAwarePreemption": frozenset({"v1.36.2"}),
    "TopologyAwareWorkloadScheduling": NONE,
    # the allocator's device checks (plugins/dynamicresources/allocator.py isSelectable): taints
    # at both values; binding conditions at both for the Filter (PreBind's wait is not replayed);
    # counters and multiple allocations off only (on: the claim is not evaluated, an error)
    "DRADeviceTaints": EVERY,
    "DRADeviceBindingConditions": EVERY,
    # DRA beyond the allocator imitated here
    "DRAAdminAccess": NONE,
    "DRAConsumableCapacity": NONE,
    "DRADeviceTaintRules": NONE,
    "DRAExtendedResource": NONE,
    "DRAListTypeAttributes": NONE,
    "DRANodeAllocatableResources": NONE,
    "DRAPartitionableDevices": NONE,
    "DRAResourceClaimDeviceStatus": NONE,
    "DRASchedulerFilterTimeout": NONE,
    "DRAWorkloadResourceClaims": NONE,
    "DRAControlPlaneController": NONE,
    # the plugins' and the queue's other gates, imitated at their default only
    "TaintTolerationComparisonOperators": NONE,
    "SchedulerQueueingHints": NONE,
    "SchedulerPopFromBackoffQ": NONE,
    "StorageCapacityScoring": NONE,
    "VolumeCapacityPriority": NONE,
    "VolumeLimitScaling": NONE,
    "VolumeAttributesClass": NONE,
    "SidecarContainers": NONE,
    "NodeInclusionPolicyInPodTopologySpread": NONE,
    "MatchLabelKeysInPodTopologySpread": NONE,
    "MatchLabelKeysInPodAffinity": NONE,
    "MinDomainsInPodTopologySpread": NONE,
    "PodSchedulingReadiness": NONE,
    "PodDisruptionConditions": NONE,
    "CSIMigrationPortworx": NONE,
}


# kube_features.go defaultKubernetesFeatureGateDependencies, the entries among the gates of
# workload-aware scheduling (the others name gates imitated at their default only, or locked):
# featureGate.unsafeSetFromMap refuses a gate enabled while one it depends on is disabled
GATE_DEPENDENCIES: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "v1.35.6": (("GangScheduling", ("GenericWorkload",)),),
    "v1.36.2": (("GangScheduling", ("GenericWorkload",)),
                ("TopologyAwareWorkloadScheduling", ("GenericWorkload",)),
                ("WorkloadAwarePreemption", ("GangScheduling",)),
                ("WorkloadWithJob", ("GenericWorkload",))),
}


def imitated(gate: str, release: str) -> bool | None:
    """Whether the release's behaviour under `gate` is imitated at both values: True, False (a
    scheduling gate imitated at its default only), None (the gate does not touch scheduling)."""
    releases = SCHEDULING_GATES.get(gate)
    return None if releases is None else release in releases
