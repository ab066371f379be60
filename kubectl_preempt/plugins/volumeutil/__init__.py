"""What the volume plugins share: the per-cycle index of storage objects
(PVC/PV/StorageClass/CSINode/CSIDriver/CSIStorageCapacity/VolumeAttachment), the helpers of
k8s.io/component-helpers/storage, and the part of k8s.io/csi-translation-lib the scheduler uses.
"""
