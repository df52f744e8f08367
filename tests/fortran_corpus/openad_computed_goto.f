c     In the style of the OpenAD regression suite's control-flow tests
c     (not a copy). Exercises: a computed GOTO selecting one of three
c     formulas, labelled CONTINUE targets, a forward GOTO to the end.
c corpus: --sizes k=2 --init x=uniform(0.5,1.5)
      subroutine head(k, x, y)
      integer k
      double precision x(2), y
      goto (10, 20, 30) k
      y = x(1)
      goto 40
   10 y = sin(x(1)) * x(2)
      goto 40
   20 y = x(1) * x(1) + exp(x(2))
      goto 40
   30 y = log(x(1)) - x(2)
   40 continue
      return
      end
