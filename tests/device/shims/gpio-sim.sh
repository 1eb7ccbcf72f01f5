#!/bin/sh
# gpio-sim for the root's kernel, from Debian's own kernel source (linux-source-6.1), with the
# IRQ simulator it needs linked into the same module: Debian builds neither. irq_sim.c calls
# irq_to_desc, which a module cannot; the exported generic_handle_irq does the same for the
# simple IRQ handler irq_sim installs.
#   gpio-sim.sh KERNEL-VERSION
set -eu
kver=$1
src=linux-source-6.1
work=$(mktemp -d)
cd "$work"
tar -xJf /usr/src/$src.tar.xz $src/drivers/gpio/gpio-sim.c $src/drivers/gpio/gpiolib.h \
    $src/kernel/irq/irq_sim.c
cp $src/drivers/gpio/gpio-sim.c gpio-sim-main.c
cp $src/drivers/gpio/gpiolib.h .
sed 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' \
    $src/kernel/irq/irq_sim.c >irq_sim.c
grep -q 'generic_handle_irq(irqnum)' irq_sim.c
printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n' >Kbuild
make -s -C "/lib/modules/$kver/build" M="$work" modules
install -D -m 644 gpio-sim.ko "/lib/modules/$kver/extra/gpio-sim.ko"
depmod "$kver"
cd /
rm -rf "$work"
